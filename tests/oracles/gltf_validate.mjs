// Validates a .glb with the Khronos glTF-Validator (pinned in package.json).
// Usage: node gltf_validate.mjs FILE.glb
// Prints {"errors": n, "warnings": n, "messages": [{code, severity, pointer, message}]}
// (severity 0 error, 1 warning, 2 info, 3 hint) and exits 0; 2 when the file
// cannot be read.
import { readFileSync } from 'node:fs';
import validator from 'gltf-validator';

const bytes = new Uint8Array(readFileSync(process.argv[2]));
const report = await validator.validateBytes(bytes, { maxIssues: 1000, format: 'glb' });
const messages = report.issues.messages.map((m) => ({
  code: m.code, severity: m.severity, pointer: m.pointer ?? null, message: m.message,
}));
process.stdout.write(JSON.stringify({
  errors: report.issues.numErrors,
  warnings: report.issues.numWarnings,
  messages,
}) + '\n');
