"""The PostgreSQL schema of `PostgresSessionStore`, as numbered migrations.

Each migration runs once, in order, inside one transaction that holds a
transaction-level advisory lock, so processes connecting at the same time
apply it exactly once. Applied versions are rows of `skawld_schema_migrations`.
Add a migration by appending to `MIGRATIONS`; never edit an applied one.
"""

from __future__ import annotations

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
CREATE TABLE sessions (
  id text PRIMARY KEY,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  meta jsonb NOT NULL DEFAULT '{}'::jsonb,
  invoked_skills jsonb NOT NULL DEFAULT '[]'::jsonb,
  next_seq bigint NOT NULL DEFAULT 1,
  next_task_id bigint NOT NULL DEFAULT 1
);
CREATE INDEX sessions_updated_at_idx ON sessions (updated_at DESC, id DESC);
CREATE TABLE messages (
  session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  appended_at timestamptz NOT NULL,
  message_json text NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE tasks (
  session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  id text NOT NULL,
  subject text NOT NULL,
  description text NOT NULL,
  active_form text,
  status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed')),
  owner text,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, id)
);
CREATE INDEX tasks_session_status_idx ON tasks (session_id, status);
CREATE TABLE task_edges (
  session_id text NOT NULL,
  from_task_id text NOT NULL,
  to_task_id text NOT NULL,
  PRIMARY KEY (session_id, from_task_id, to_task_id),
  FOREIGN KEY (session_id, from_task_id) REFERENCES tasks(session_id, id) ON DELETE CASCADE,
  FOREIGN KEY (session_id, to_task_id) REFERENCES tasks(session_id, id) ON DELETE CASCADE
);
CREATE INDEX task_edges_to_idx ON task_edges (session_id, to_task_id);
""",
    ),
    (
        2,
        """
CREATE TABLE session_writers (
  session_id text PRIMARY KEY,
  epoch bigint NOT NULL DEFAULT 0,
  pid integer,
  host text,
  started text,
  since timestamptz
);
""",
    ),
    (
        3,
        """
CREATE FUNCTION skawld_task_ready_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('skawld_tasks_' || TG_TABLE_SCHEMA, NEW.session_id);
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_ready_notify AFTER INSERT OR UPDATE OF status ON tasks
  FOR EACH ROW WHEN (NEW.status <> 'in_progress') EXECUTE FUNCTION skawld_task_ready_notify();
""",
    ),
    (
        4,
        # Claims walk this index in claim order and stop at the first ready row, instead of
        # reading and sorting every task of the list (completed tasks are not in it).
        """
CREATE INDEX tasks_claim_order_idx ON tasks
  (session_id, (CASE WHEN id ~ '^[0-9]{1,18}$' THEN id::bigint END) NULLS LAST, id)
  WHERE status <> 'completed';
""",
    ),
    (
        5,
        # A finished task wakes workers only when that can matter: it blocks another task (which
        # may now be ready), or no task of the list is pending, or none other is in progress (the
        # list may be drained, which idle slots wait to see). A finish that can do neither sent a
        # notification per task for nothing: each one queued under the server's global NOTIFY
        # lock at commit and woke every listener.
        """
CREATE OR REPLACE FUNCTION skawld_task_ready_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.status <> 'completed'
    OR EXISTS (SELECT 1 FROM task_edges e WHERE e.session_id = NEW.session_id AND e.from_task_id = NEW.id)
    OR NOT EXISTS (SELECT 1 FROM tasks t WHERE t.session_id = NEW.session_id AND t.status = 'pending')
    OR NOT EXISTS (SELECT 1 FROM tasks t WHERE t.session_id = NEW.session_id AND t.status = 'in_progress'
                   AND t.id <> NEW.id)
  THEN
    PERFORM pg_notify('skawld_tasks_' || TG_TABLE_SCHEMA, NEW.session_id);
  END IF;
  RETURN NULL;
END $$;
""",
    ),
]

SCHEMA_VERSION = MIGRATIONS[-1][0]

MIGRATIONS_TABLE = """
CREATE TABLE IF NOT EXISTS skawld_schema_migrations (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)
"""

# Key of the transaction-level advisory lock that serializes migrations.
MIGRATION_LOCK_KEY = 0x736B61776C64  # "skawld"
