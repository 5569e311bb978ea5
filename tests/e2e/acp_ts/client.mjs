// Drives `skawld acp` with the TypeScript ACP SDK (`@agentclientprotocol/sdk`, installed by .ci/run
// under .ci/acp-sdk). Usage: node client.mjs '<json spec>' with {sdk, command, args, cwd, env,
// buffer: {path, text}}. It initializes (advertising fs.readTextFile and fs.writeTextFile), opens a
// session, prompts once, answers permission asks with allow_once, fs/read_text_file from `buffer` and
// fs/write_text_file by saving the file, then prints {"updates": [...], "stopReason", "reads": [...],
// "writes": [[path, content], ...]} as one JSON line.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";

const spec = JSON.parse(process.argv[2]);
const acp = await import(spec.sdk);

const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const updates = [];
const reads = [];
const writes = [];
const asks = [];

const app = acp
  .client()
  .onNotification(acp.methods.client.session.update, (ctx) => {
    const params = ctx.params;
    if (process.env.ACP_DEBUG) console.error("update", JSON.stringify(params).slice(0, 200));
    updates.push(params.update);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    asks.push(params.toolCall.toolCallId);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    reads.push(params.path);
    if (params.path !== spec.buffer.path) throw acp.RequestError.resourceNotFound(params.path);
    return { content: spec.buffer.text };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    writes.push([params.path, params.content]);
    if (params.path === spec.buffer.path) spec.buffer.text = params.content;
    writeFileSync(params.path, params.content);
    return {};
  });

try {
  const out = await app.connectWith(stream, async (agent) => {
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    const session = await agent.request(acp.methods.agent.session.new, { cwd: spec.cwd, mcpServers: [] });
    const done = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "read the draft" }],
    });
    return { agentInfo: init.agentInfo, modes: session.modes, stopReason: done.stopReason };
  });
  process.stdout.write(JSON.stringify({ ...out, updates, reads, writes, asks }) + "\n");
} catch (err) {
  process.stdout.write(JSON.stringify({ error: String(err && err.stack ? err.stack : err) }) + "\n");
} finally {
  child.stdin.end();
}
