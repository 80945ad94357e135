// Checks Kubernetes manifests offline against the API's schemas, two ways:
//   - kubernetes-models' validators (the OpenAPI schemas of Kubernetes and of the Prometheus
//     Operator's resources, compiled): types, required fields, formats;
//   - TypeScript's excess-property check, with each object typed by its API interface: a field
//     the API does not have (a typo, a field of another kind) is an error there, which the
//     OpenAPI schemas let through.
// Usage: node validate.mjs FILE...  (YAML, several documents each; kustomization.yaml files are
// skipped). Prints one line per object; exits 1 with every problem when there is one.
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import yaml from "js-yaml";
import { Namespace, Service } from "kubernetes-models/v1";
import { DaemonSet } from "kubernetes-models/apps/v1";
import { PodMonitor, ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";

// The kinds the manifests may hold: their model, and where TypeScript finds their interface.
const kinds = {
  "v1/Namespace": [Namespace, "kubernetes-models/v1/Namespace", "INamespace"],
  "v1/Service": [Service, "kubernetes-models/v1/Service", "IService"],
  "apps/v1/DaemonSet": [DaemonSet, "kubernetes-models/apps/v1/DaemonSet", "IDaemonSet"],
  "monitoring.coreos.com/v1/PodMonitor": [
    PodMonitor, "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor", "IPodMonitor"],
  "monitoring.coreos.com/v1/ServiceMonitor": [
    ServiceMonitor, "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor",
    "IServiceMonitor"],
};

const here = dirname(fileURLToPath(import.meta.url));
const problems = [];
const typed = [];
for (const file of process.argv.slice(2)) {
  if (file.endsWith("kustomization.yaml")) continue;
  yaml.loadAll(readFileSync(file, "utf8"), (doc) => {
    if (!doc) return;
    const key = `${doc.apiVersion}/${doc.kind}`;
    const known = kinds[key];
    const name = `${file}: ${key} ${doc.metadata?.name}`;
    if (!known) {
      problems.push(`${name}: no schema for this kind here`);
      return;
    }
    try {
      new known[0](doc).validate();
    } catch (e) {
      problems.push(`${name}: ${e.message}`);
      return;
    }
    typed.push({ name, doc, module: known[1], type: known[2] });
    console.log(`schema ok: ${name}`);
  });
}

// One TypeScript file typing every object by its interface, compiled without output.
if (typed.length) {
  const dir = mkdtempSync(join(tmpdir(), "k8s-validate-"));
  const lines = typed.map((t, i) => `import type { ${t.type} as T${i} } from "${t.module}";`);
  typed.forEach((t, i) => lines.push(`// ${t.name}\nexport const o${i}: T${i} = ${JSON.stringify(t.doc, null, 1)};`));
  const source = join(dir, "manifests.ts");
  writeFileSync(source, lines.join("\n") + "\n");
  try {
    execFileSync(process.execPath, [join(here, "node_modules/typescript/bin/tsc"), "--noEmit", "--strict",
      "--skipLibCheck", "--moduleResolution", "node", "--module", "commonjs", "--target", "es2020",
      "--typeRoots", join(here, "node_modules/@types"), "--baseUrl", join(here, "node_modules"), source],
      { cwd: here, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    console.log(`types ok: ${typed.length} objects`);
  } catch (e) {
    // tsc names the line; the comment above each object names it.
    const text = readFileSync(source, "utf8").split("\n");
    for (const line of `${e.stdout}${e.stderr}`.split("\n").filter((l) => l.includes("error TS"))) {
      const at = Number((line.match(/\((\d+),\d+\)/) || [])[1] || 0);
      let owner = "";
      for (let n = at - 1; n >= 0; n--) if (text[n]?.startsWith("// ")) { owner = text[n].slice(3); break; }
      problems.push(`${owner}: ${line.replace(/^.*error /, "error ")}`);
    }
    if (!problems.length) problems.push(`tsc failed: ${e.message}`);
  }
}
for (const p of problems) console.log(`problem: ${p}`);
process.exit(problems.length ? 1 : 0);
