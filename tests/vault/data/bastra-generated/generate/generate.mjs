// Writes a small vault with Bastra Recall's own code (run by hand, never in CI; see ../README.md).
//
//   node generate.mjs BASTRA_SRC OUT
//
// BASTRA_SRC is an exported, `npm ci`-ed and built Bastra Recall checkout; OUT is emptied
// and receives OUT/vault (the end state), OUT/before-link-rewrite (the vault just before
// the daemon's enricher rewrote links) and OUT/mcp-save (one memory saved through the
// daemon's MCP `save_memory` handler, which writes no audit line). Every file in it is written by Bastra's core library (the calls
// its Mac-app bridge makes: auditedSave, auditedSoftDelete, auditedRestore, and the
// RelatedEnricher its daemon runs on every embedding); this script only chooses what to
// save, with texts of our own, and feeds the enricher a tiny deterministic embedding
// provider in place of Ollama or OpenAI.
import { cp, mkdir, rm, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [source, out] = process.argv.slice(2);
if (!source || !out) {
  console.error("usage: node generate.mjs BASTRA_SRC OUT");
  process.exit(2);
}
const core = await import(pathToFileURL(join(source, "packages/core/dist/index.js")).href);
const root = join(out, "vault");
await rm(out, { recursive: true, force: true });
await mkdir(root, { recursive: true });

const vault = new core.Vault(root);
await vault.init();
const auditLog = new core.AuditLog(root);
const session = "5f0c2a7e-3b41-4d8e-a9c6-2e7f1b0d4c93";
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function save(input, context) {
  const { result } = await core.auditedSave({ vault, auditLog, vaultRoot: root, input, context });
  await vault.reindexFile(result.file_path); // as the bridge does after a save
  await pause(20); // distinct audit timestamps, as separate requests would have
  return result;
}

const claude = { actor: "assistant", actor_detail: "claude-code", session_id: session };

// -- saves by every actor kind Bastra knows (user, assistant, system, import) --------
await save(
  {
    title: "Run migrations behind a flag",
    type: "workflow",
    summary: "Ship a schema migration dark first: merge it behind a flag, run it, then flip.",
    body:
      "Every Postgres schema migration ships in two deploys. The first merges the migration " +
      "behind the `migrations.enabled` flag and runs it on staging; the second flips the " +
      "flag on production once the lock monitor stayed quiet for a day.",
    topic_path: ["werkbank", "database"],
    tags: ["postgres", "migration", "deploy"],
    scope: "werkbank",
    recall_when: ["before writing a schema migration", "when a deploy touches the database"],
    confidence: 0.9,
    affects_files: ["db/migrations/"],
  },
  { ...claude, actor_detail: "cursor", reason: "The user described the two-deploy rule." },
);
await save(
  {
    title: "Staging database is shared",
    type: "project-fact",
    summary: "The staging Postgres is shared with the billing team; warn them before a migration.",
    body:
      "The werkbank staging Postgres also serves billing's staging. A migration that locks " +
      "a table stalls their test runs too, so announce it in #billing first.\n\n" +
      "How we ship migrations: [[run-migrations-behind-a-flag]].",
    topic_path: ["werkbank", "database"],
    tags: ["postgres", "staging", "migration"],
    scope: "werkbank",
    recall_when: ["before running a migration on staging"],
  },
  { ...claude, reason: "Learned while a staging migration blocked billing's tests." },
);
await save(
  {
    title: "Reply in German to the team",
    type: "user-preference",
    summary: "Messages to the werkbank team are written in German; code and commits stay English.",
    body: "Team chat, reviews and tickets in German. Code, comments and commit messages in English.",
    topic_path: ["communication"],
    tags: ["language", "team"],
    scope: "user-preference",
    recall_when: ["when drafting a message to the team"],
    sensitivity: "private",
  },
  { actor: "user", actor_detail: "mac-app" },
);
await save(
  {
    title: "Postgres lock monitoring query",
    type: "bookmark",
    summary: "A saved query that lists the backends waiting on a lock and who holds it.",
    body: "Joins pg_locks with pg_stat_activity; run it while a migration is in flight.",
    topic_path: ["database", "monitoring"],
    tags: ["postgres", "locks"],
    scope: "werkbank",
    recall_when: ["while a migration is waiting on a lock"],
    url: "https://wiki.postgresql.org/wiki/Lock_Monitoring",
    categories: ["database"],
    read_status: "read",
    source_app: "browser-extension",
  },
  { actor: "import", actor_detail: "bookmark-import" },
);
await save(
  {
    title: "Pin the Node major in CI",
    type: "lesson",
    summary: "CI images follow the Node major in .nvmrc; a floating tag broke a release once.",
    body:
      "The release pipeline used `node:lts`; the day lts moved a major, native modules " +
      "failed to build. CI now reads the major from `.nvmrc`.",
    topic_path: ["werkbank", "ci"],
    tags: ["ci", "node"],
    scope: "werkbank",
    recall_when: ["when editing the CI image", "when a native module fails to build in CI"],
    source: "wiki: Release pipeline postmortem",
  },
  { actor: "import", actor_detail: "wiki-import" },
);
await save(
  {
    title: "Review dependency updates weekly",
    type: "decision",
    summary: "Dependency update pull requests are batched and reviewed on Mondays.",
    body: "Renovate opens them all week; one person merges the green ones every Monday.",
    topic_path: ["maintenance"],
    tags: ["dependencies", "review"],
    scope: "all-projects",
    recall_when: ["when a dependency update pull request arrives"],
    last_reviewed_at: "2026-11-30",
    expires_after_days: 180,
  },
  { actor: "system", actor_detail: "curator" },
);
await save(
  {
    title: "Use Valkey for sessions",
    type: "decision",
    summary: "Login sessions live in Valkey with a 14-day expiry, so app restarts keep users in.",
    body: "Session data moved out of the app's memory into Valkey; a restart no longer logs anyone out.",
    topic_path: ["werkbank", "sessions"],
    tags: ["sessions", "valkey"],
    scope: "werkbank",
    recall_when: ["when touching login or session storage"],
  },
  { ...claude, reason: "The user settled the session store." },
);

// -- an update (the Mac app overwrites a memory it already has) -----------------------
await save(
  {
    id: "staging-database-is-shared",
    overwrite: true,
    title: "Staging database is shared",
    type: "project-fact",
    summary: "Staging Postgres is shared with billing; announce every migration in #billing.",
    body:
      "The werkbank staging Postgres also serves billing's staging. A migration that locks " +
      "a table stalls their test runs too, so announce it in #billing an hour ahead.\n\n" +
      "How we ship migrations: [[run-migrations-behind-a-flag]].",
    topic_path: ["werkbank", "database"],
    tags: ["postgres", "staging", "migration", "billing"],
    scope: "werkbank",
    recall_when: ["before running a migration on staging", "when billing reports stalled tests"],
  },
  { actor: "user", actor_detail: "mac-app" },
);

// -- the daemon's link rewrite: embeddings, then the RelatedEnricher (no audit line) ---
// The vault as it was before the rewrite is kept too, so a test can commit the two states.
await cp(root, join(out, "before-link-rewrite"), { recursive: true });
const words = [
  ["postgres", "migration", "schema", "database", "lock"],
  ["deploy", "release", "flag", "pipeline"],
  ["session", "valkey", "login"],
  ["german", "english", "language", "message"],
  ["node", "ci", "native"],
  ["dependency", "renovate", "review"],
];
const provider = {
  id: "fixture-keywords",
  dim: words.length + 1,
  async embed(texts) {
    return texts.map((text) => {
      const lower = text.toLowerCase();
      const counts = words.map((group) => group.filter((word) => lower.includes(word)).length);
      return Float32Array.from([...counts, 0.5]);
    });
  },
};
const embeddings = new core.EmbeddingIndex(vault, provider, join(root, ".bastra/embeddings.json"));
const enricher = new core.RelatedEnricher(vault, embeddings, { topN: 5, threshold: 0.7 });
enricher.start();
await embeddings.start();

async function snapshot(directory) {
  const parts = [];
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath ?? entry.path, entry.name);
      parts.push(path, await readFile(path, "utf8"));
    }
  }
  return parts.sort().join("\0");
}
async function settle() {
  // Until the queue is empty and no file changed across the persist debounce (1 s).
  let before = "";
  for (;;) {
    await pause(1500);
    const now = await snapshot(root);
    if (now === before && embeddings.pendingSize() === 0 && embeddings.inFlightCount() === 0) return;
    before = now;
  }
}
await settle();
enricher.stop();
embeddings.stop();

// -- delete, restore, delete again ----------------------------------------------------
await core.auditedSoftDelete({
  vault, auditLog, vaultRoot: root, memoryID: "use-valkey-for-sessions",
  context: { ...claude, reason: "The user said sessions moved to signed cookies." },
});
await pause(20);
const restored = await core.auditedRestore({
  auditLog, vaultRoot: root, memoryID: "use-valkey-for-sessions",
  context: { actor: "user", actor_detail: "mac-app" },
});
await vault.reindexFile(restored.restoredTo);
await pause(20);
await core.auditedSoftDelete({
  vault, auditLog, vaultRoot: root, memoryID: "use-valkey-for-sessions",
  context: { actor: "user", actor_detail: "mac-app" },
});
// -- a save through the daemon's MCP tool, which writes no audit line -----------------
// Into a vault of its own (OUT/mcp-save): a test adds the file to a later commit.
const mcpRoot = join(out, "mcp-save");
const daemon = await import(
  pathToFileURL(join(source, "packages/daemon/dist/tool-handlers.js")).href
);
const quietTelemetry = { logSaveMemory: async () => {}, recentRecallId: () => undefined };
await daemon.saveMemoryHandler(
  { vault: new core.Vault(mcpRoot), search: null, telemetry: quietTelemetry, vaultPath: mcpRoot },
  {
    title: "Billing owns the staging reset",
    type: "project-fact",
    summary: "Only the billing team resets staging; ask them instead of running the reset job.",
    body: "The reset job drops billing's fixtures too, so they run it on Friday evenings.",
    topic_path: ["werkbank", "database"],
    tags: ["staging", "billing"],
    scope: "werkbank",
    recall_when: ["when staging data looks wrong"],
  },
);
console.log(`vault written to ${root}`);
