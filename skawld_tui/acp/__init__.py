"""``skawld acp``: skawld as an Agent Client Protocol agent (`skawld_tui.acp.agent`)."""
