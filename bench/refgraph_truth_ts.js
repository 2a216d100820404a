// Ground truth for the reference graph on TypeScript: what the TypeScript compiler resolves
// each name use to (the same JSON as bench/refgraph_truth.py; compare with
// bench/refgraph_accuracy.py).
//
//   npm install typescript            # anywhere; NODE_PATH=<that>/node_modules
//   node bench/refgraph_truth_ts.js REPO --sample 40 --out truth.json
//
// Picks --sample .ts files of REPO (not .d.ts, not under node_modules) by a hash of their path,
// builds one Program over every .ts file of REPO, and for each identifier read in a sampled file
// (a bare name, a property access's name, a type reference) asks the checker for its symbol
// (an import alias followed to what it names). Writes, per use, [file, line, column, name,
// [[def file, def line, type], ...]]; a definition outside REPO is kept with its file null.
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const ts = require("typescript");

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

function kindOf(decl) {
  const k = ts.SyntaxKind;
  switch (decl.kind) {
    case k.FunctionDeclaration: case k.MethodDeclaration: case k.MethodSignature:
    case k.Constructor: case k.GetAccessor: case k.SetAccessor:
      return "function";
    case k.ClassDeclaration: case k.InterfaceDeclaration: case k.TypeAliasDeclaration:
    case k.EnumDeclaration: case k.ModuleDeclaration:
      return "class";
    case k.VariableDeclaration:
      return decl.initializer && (ts.isArrowFunction(decl.initializer) ||
        ts.isFunctionExpression(decl.initializer)) ? "function" : "statement";
    default:
      return "statement";
  }
}

function main() {
  const args = process.argv.slice(2);
  const repo = path.resolve(args[0]);
  const sample = Number(args[args.indexOf("--sample") + 1] || 40);
  const out = args[args.indexOf("--out") + 1];
  const files = walk(repo, []);
  const rel = (f) => path.relative(repo, f).split(path.sep).join("/");
  const sha = (s) => crypto.createHash("sha1").update(s).digest("hex");
  const picked = files.map(rel).sort((a, b) => (sha(a) < sha(b) ? -1 : 1)).slice(0, sample).sort();
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, allowJs: false,
    noEmit: true, skipLibCheck: true, strict: false,
  });
  const checker = program.getTypeChecker();
  const rows = [];
  for (const r of picked) {
    const sf = program.getSourceFile(path.join(repo, r));
    if (!sf) continue;
    const visit = (node) => {
      let id = null;
      if (ts.isPropertyAccessExpression(node)) id = node.name;
      else if (ts.isTypeReferenceNode(node)) id = ts.isIdentifier(node.typeName) ? node.typeName : node.typeName.right;
      else if (ts.isIdentifier(node) && node.parent && !ts.isPropertyAccessExpression(node.parent) &&
        !(ts.isDeclaration(node.parent) && node.parent.name === node) &&
        !ts.isImportSpecifier(node.parent) && !ts.isImportClause(node.parent) &&
        !ts.isNamespaceImport(node.parent) && !ts.isTypeReferenceNode(node.parent) &&
        !ts.isQualifiedName(node.parent)) id = node;
      if (id && ts.isIdentifier(id)) {
        let sym = checker.getSymbolAtLocation(id);
        if (sym && sym.flags & ts.SymbolFlags.Alias) {
          try { sym = checker.getAliasedSymbol(sym); } catch (e) { /* unresolved */ }
        }
        const defs = [];
        for (const d of (sym && sym.declarations) || []) {
          const file = d.getSourceFile().fileName;
          const inside = file.startsWith(repo + path.sep) && !file.endsWith(".d.ts");
          const line = d.getSourceFile().getLineAndCharacterOfPosition(d.getStart()).line + 1;
          const nameLine = d.name ? d.getSourceFile().getLineAndCharacterOfPosition(d.name.getStart()).line + 1 : line;
          defs.push([inside ? rel(file) : null, nameLine, kindOf(d)]);
        }
        const pos = sf.getLineAndCharacterOfPosition(id.getStart());
        rows.push([r, pos.line + 1, pos.character, id.text, defs]);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    process.stderr.write(`${r}: ${rows.length} uses so far\n`);
  }
  fs.writeFileSync(out, JSON.stringify({ repo, files: picked, uses: rows }));
}

main();
