"""The interactive Textual app (`skawld`): `skawld_app.SkawldApp`, its parts, screens/ and widgets/."""
