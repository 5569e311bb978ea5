// Drives Zed's ACP adapter for Claude Code (`@zed-industries/claude-code-acp`, installed by .ci/run
// under .ci/zed-acp) pointed at skawld with CLAUDE_CODE_EXECUTABLE, through the TypeScript ACP SDK's
// client (`@agentclientprotocol/sdk`, under .ci/acp-sdk). Usage: node client.mjs '<json spec>' with
// {sdk, adapter, cwd, env, prompt, load?}. It initializes (no fs, no terminal: skawld runs the tools itself),
// opens a session, prompts once answering permission asks with allow_once, then (with `load`) loads the
// session in a second adapter process, and prints {"first": {...}, "load": {...}} as one JSON line.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const spec = JSON.parse(process.argv[2]);
const acp = await import(spec.sdk);

async function withAdapter(work) {
  const child = spawn(process.execPath, [spec.adapter], { cwd: spec.cwd, env: spec.env, stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const updates = [];
  const asks = [];
  const app = acp
    .client()
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      asks.push({ toolCallId: params.toolCall.toolCallId, title: params.toolCall.title, options: params.options.map((o) => o.kind) });
      const once = params.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: once.optionId } };
    });
  try {
    const out = await app.connectWith(stream, async (agent) => {
      await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      });
      return await work(agent);
    });
    return { ...out, updates, asks };
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGTERM"), 10000);
    await exited;
    clearTimeout(timer);
  }
}

try {
  const first = await withAdapter(async (agent) => {
    const session = await agent.request(acp.methods.agent.session.new, { cwd: spec.cwd, mcpServers: [] });
    const done = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: spec.prompt }],
    });
    return { sessionId: session.sessionId, modes: session.modes, stopReason: done.stopReason };
  });
  let load = null;
  if (spec.load) {
    load = await withAdapter(async (agent) => {
      const loaded = await agent.request(acp.methods.agent.session.load, { sessionId: first.sessionId, cwd: spec.cwd, mcpServers: [] });
      return { modes: loaded.modes };
    });
  }
  process.stdout.write(JSON.stringify({ first, load }) + "\n");
} catch (err) {
  process.stdout.write(JSON.stringify({ error: String(err && err.stack ? err.stack : err) }) + "\n");
}
process.exit(0);
