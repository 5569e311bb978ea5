// Drives skawld with the TypeScript Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`, installed by
// .ci/run under .ci/claude-sdk). Usage: node driver.mjs '<json spec>'. Prints one JSON line per SDK
// message ({"message": ...}) and per callback the SDK made ({"callback": ...}), then {"done": true}
// or {"error": "..."}. The spec: {sdk, case, prompt, skawld, cwd, env, model, baseUrl, resume?, mcpServer?}.
const spec = JSON.parse(process.argv[2]);
const { query, createSdkMcpServer, tool } = await import(spec.sdk);
const { z } = await import(spec.zod);

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

const options = {
  pathToClaudeCodeExecutable: spec.skawld,
  cwd: spec.cwd,
  env: spec.env,
  model: spec.model,
  extraArgs: { "base-url": spec.baseUrl },
  maxTurns: 6,
  stderr: (data) => process.stderr.write(data),
};
if (spec.resume) options.resume = spec.resume;

switch (spec.case) {
  case "canUseTool":
    options.canUseTool = async (toolName, input, { toolUseID }) => {
      out({ callback: "canUseTool", toolName, input, toolUseID });
      return input.command === "touch denied.txt"
        ? { behavior: "deny", message: "no shell today" }
        : { behavior: "allow", updatedInput: input };
    };
    break;
  case "hook":
    options.hooks = {
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [
            async (input) => {
              out({ callback: "PreToolUse", tool_name: input.tool_name, tool_use_id: input.tool_use_id });
              return {
                hookSpecificOutput: {
                  hookEventName: "PreToolUse",
                  permissionDecision: "deny",
                  permissionDecisionReason: "hook says no",
                },
              };
            },
          ],
        },
      ],
    };
    break;
  case "partial":
    options.includePartialMessages = true;
    break;
  case "bypass":
    options.permissionMode = "bypassPermissions";
    options.allowDangerouslySkipPermissions = true;
    break;
  case "mcpStdio":
    options.mcpServers = { fixture: spec.mcpServer };
    options.allowedTools = ["mcp__fixture__echo"];
    break;
  case "sdkTool": {
    const calc = tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async (args, extra) => {
      out({ callback: "sdkTool", args, meta: extra?._meta ?? null });
      return { content: [{ type: "text", text: `sum=${args.a + args.b}` }] };
    });
    options.mcpServers = { calc: createSdkMcpServer({ name: "calc", version: "1.0.0", tools: [calc] }) };
    options.allowedTools = ["mcp__calc__add"];
    break;
  }
  case "systemPrompt":
    options.systemPrompt = "You are the pirate assistant. Always say arr.";
    break;
  case "systemPromptPreset":
    options.systemPrompt = { type: "preset", preset: "claude_code", append: "Always end with arr." };
    break;
  case "initConfig":
    options.settings = { permissions: { deny: ["Bash"] } };
    options.settingsDelivery = "initialize";
    options.plugins = [{ type: "local", path: spec.pluginDir }];
    options.pluginDelivery = "initialize";
    options.skills = ["kept", "lint-check"];
    break;
  case "agents":
    options.agents = {
      reviewer: { description: "Reviews code for bugs", prompt: "You review code.", tools: ["Read"] },
    };
    break;
  case "disallowed":
    options.disallowedTools = ["Bash", "KillShell"];
    break;
}

try {
  for await (const message of query({ prompt: spec.prompt, options })) out({ message });
  out({ done: true });
} catch (err) {
  out({ error: String(err && err.stack ? err.stack : err) });
}
