// Tokenizes scenes with syntaxes/forge-ron.tmLanguage.json through the same TextMate engine
// VS Code uses (vscode-textmate + vscode-oniguruma), without starting VS Code.
'use strict';

const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const oniguruma = require('vscode-oniguruma');
const textmate = require('vscode-textmate');

const GRAMMAR = path.join(__dirname, '..', 'syntaxes', 'forge-ron.tmLanguage.json');
const ASSETS = path.join(__dirname, '..', '..', '..', 'assets');
const S = '.forge-ron';

/** @type {import('vscode-textmate').IGrammar} */
let grammar;

before(async () => {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) => scopeName === `source${S}`
      ? textmate.parseRawGrammar(fs.readFileSync(GRAMMAR, 'utf8'), GRAMMAR)
      : null,
  });
  const loaded = await registry.loadGrammar(`source${S}`);
  assert.ok(loaded, 'the grammar loads');
  grammar = loaded;
});

/** Every token of `text`, as { line, text, scopes }. */
function tokenize(text) {
  const tokens = [];
  let state = textmate.INITIAL;
  text.split(/\r?\n/).forEach((line, index) => {
    const result = grammar.tokenizeLine(line, state);
    for (const token of result.tokens) {
      tokens.push({ line: index + 1, text: line.slice(token.startIndex, token.endIndex), scopes: token.scopes });
    }
    state = result.ruleStack;
  });
  return tokens;
}

/** The scopes of the `nth` token (from 0) whose text is `text`, on `line` if given. */
function scopesOf(tokens, text, { line, nth = 0 } = {}) {
  const found = tokens.filter((t) => t.text === text && (line === undefined || t.line === line));
  assert.ok(found.length > nth, `no token ${JSON.stringify(text)}${line ? ` on line ${line}` : ''}; tokens: ${
    JSON.stringify(tokens.filter((t) => line === undefined || t.line === line).map((t) => t.text))}`);
  return found[nth].scopes;
}

function assertScope(scopes, scope, what) {
  assert.ok(scopes.includes(scope), `${what}: expected ${scope} in ${JSON.stringify(scopes)}`);
}

function assertNoScope(scopes, prefix, what) {
  assert.ok(!scopes.some((s) => s.startsWith(prefix)), `${what}: no ${prefix}* expected in ${JSON.stringify(scopes)}`);
}

const SAMPLE = String.raw`// A scene with one of everything.
(
  format_version: 1,
  name: "Platformer \"demo\"\n",
  entities: {
    /* first /* nested */ still a comment */
    1: (id: 1, name: "Camera", parent: None, children: [],
        transform: (translation: (x: -4.0, y: 1e-3, z: 10.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
        components: [(type: camera2d), (type: custom, data: (type_path: "forge_demo::Follow", fields: [(name: "target", expr: "#7/2")]))]),
    7: (id: 7, name: "Goblin", parent: None, children: [], locked: true,
        components: [
          (type:
            sprite, data: (image: Some("models/robot.gltf#Mesh0"), custom_size: None)),
          (type: custom, data: (type_path: "game::Say", fields: [(name: "line", expr: r#"Say("hi #1", #7)"#)])),
          (type: mesh3d, data: (mesh: (source: primitive, value: cuboid(size: (x: 1.0, y: 2.0, z: 3.0))))),
        ],
        instance: Some((scene: "prefabs/goblin.forge.ron", overrides: [(target: [1], set: [(type: point_light, data: (intensity: inf))])]))),
  },
  roots: [1, 7],
  next_id: 8,
)`;

test('line and nested block comments', () => {
  const tokens = tokenize(SAMPLE);
  assertScope(scopesOf(tokens, ' A scene with one of everything.', { line: 1 }), `comment.line.double-slash${S}`, 'line comment');
  // The inner */ closes the nested comment only: the rest of the line is still comment.
  assertScope(scopesOf(tokens, ' still a comment ', { line: 6 }), `comment.block${S}`, 'after a nested comment');
});

test('component tags after type:', () => {
  const tokens = tokenize(SAMPLE);
  for (const tag of ['camera2d', 'custom', 'sprite', 'mesh3d', 'point_light']) {
    const scopes = scopesOf(tokens, tag);
    assertScope(scopes, `support.type.component${S}`, tag);
  }
  // The tag may be on the line after `type:`.
  assertScope(scopesOf(tokens, 'sprite', { line: 13 }), `support.type.component${S}`, 'tag on the next line');
  assertScope(scopesOf(tokens, 'type', { line: 9 }), `variable.other.member${S}`, 'the type field');
  // Other bare identifiers are enum values, not tags.
  assertScope(scopesOf(tokens, 'primitive'), `variable.other.enummember${S}`, 'enum value');
});

test('entity references inside strings', () => {
  const tokens = tokenize(SAMPLE);
  const reference = scopesOf(tokens, '#7/2', { line: 9 });
  assertScope(reference, `variable.other.constant.entity-reference${S}`, '#7/2');
  assertScope(reference, `string.quoted.double${S}`, '#7/2 is inside a string');
  // Inside a raw string too, and only where # starts a reference.
  assertScope(scopesOf(tokens, '#7', { line: 14 }), `variable.other.constant.entity-reference${S}`, '#7 in a raw string');
  assertScope(scopesOf(tokens, '#1', { line: 14 }), `variable.other.constant.entity-reference${S}`, '#1 in a raw string');
  const assetLabel = tokens.find((t) => t.line === 13 && t.text.includes('#Mesh0'));
  assert.ok(assetLabel, 'the asset path is one token');
  assertNoScope(assetLabel.scopes, 'variable.other.constant.entity-reference', 'asset label #Mesh0');
});

test('strings, escapes and raw strings', () => {
  const tokens = tokenize(SAMPLE);
  assertScope(scopesOf(tokens, '\\"', { line: 4 }), `constant.character.escape${S}`, 'escaped quote');
  assertScope(scopesOf(tokens, '\\n', { line: 4 }), `constant.character.escape${S}`, 'newline escape');
  assertScope(scopesOf(tokens, 'forge_demo::Follow'), `string.quoted.double${S}`, 'plain string');
  // `"` inside r#"..."# does not end it; `"#` does.
  const raw = scopesOf(tokens, 'Say("hi ', { line: 14 });
  assertScope(raw, `string.quoted.double.raw${S}`, 'raw string body');
  assertScope(scopesOf(tokens, '", ', { line: 14 }), `string.quoted.double.raw${S}`, 'quote inside the raw string');
  assertScope(scopesOf(tokens, 'r', { line: 14 }), `storage.type.string${S}`, 'raw prefix');
  const line14 = tokens.filter((t) => t.line === 14);
  const end = line14.findIndex((t) => t.scopes.includes(`punctuation.definition.string.raw.end${S}`));
  assert.ok(end > 0 && line14[end].text === '#', 'the raw string ends with "#');
  assertNoScope(line14[end + 1].scopes, 'string', 'the raw string has ended');
  // r##"..."## needs two #: `"#` inside it is text.
  const twice = tokenize('(expr: r##"a "# b"##, next: 1)');
  assertScope(scopesOf(twice, 'a "# b'), `string.quoted.double.raw${S}`, 'r##');
  assertScope(scopesOf(twice, 'next'), `variable.other.member${S}`, 'after r##');
});

test('numbers and keywords', () => {
  const tokens = tokenize(SAMPLE);
  assertScope(scopesOf(tokens, '1', { line: 3 }), `constant.numeric.integer${S}`, 'integer');
  assertScope(scopesOf(tokens, '-4.0'), `constant.numeric.float${S}`, 'negative float');
  assertScope(scopesOf(tokens, '1e-3'), `constant.numeric.float${S}`, 'exponent');
  assertScope(scopesOf(tokens, 'inf'), `constant.numeric.float${S}`, 'inf');
  assertScope(scopesOf(tokens, 'None'), `constant.language.none${S}`, 'None');
  assertScope(scopesOf(tokens, 'Some'), `support.function.some${S}`, 'Some');
  assertScope(scopesOf(tokens, 'true'), `constant.language.boolean${S}`, 'true');
  assertScope(scopesOf(tokens, 'cuboid'), `entity.name.type${S}`, 'variant with a payload');
  // Digits inside identifiers are not numbers.
  assertNoScope(scopesOf(tokens, 'mesh3d'), 'constant.numeric', 'mesh3d');
  const more = tokenize('(a: 0x1F, b: 1_000, c: +2.5E+10, d: -inf, e: NaN, f: 3u8, g: .5)');
  for (const [text, kind] of [['0x1F', 'integer'], ['1_000', 'integer'], ['+2.5E+10', 'float'], ['-inf', 'float'],
    ['NaN', 'float'], ['3u8', 'integer'], ['.5', 'float']]) {
    assertScope(scopesOf(more, text), `constant.numeric.${kind}${S}`, text);
  }
});

test('field names and entity keys', () => {
  const tokens = tokenize(SAMPLE);
  assertScope(scopesOf(tokens, 'format_version'), `variable.other.member${S}`, 'field name');
  assertScope(scopesOf(tokens, 'entities'), `variable.other.member${S}`, 'entities');
  assertScope(scopesOf(tokens, '1', { line: 7, nth: 0 }), `entity.name.tag.entity-key${S}`, 'key 1');
  assertScope(scopesOf(tokens, '7', { line: 10, nth: 0 }), `entity.name.tag.entity-key${S}`, 'key 7');
  // `id: 1` and `roots: [1, 7]` are plain numbers.
  assertScope(scopesOf(tokens, '1', { line: 7, nth: 1 }), `constant.numeric.integer${S}`, 'id 1');
  assertNoScope(scopesOf(tokens, '1', { line: 19 }), 'entity.name.tag', 'roots');
  // The map ended: the fields after it are not inside it.
  assertNoScope(scopesOf(tokens, 'roots'), 'meta', 'roots');
  assertScope(scopesOf(tokens, 'next_id'), `variable.other.member${S}`, 'next_id');
});

// Every scene and prefab of the repository: the grammar gives every piece of text a scope
// (brackets aside), marks every tag and entity key, and finds nothing invalid.
const assetFiles = fs.existsSync(ASSETS)
  ? fs.readdirSync(ASSETS, { recursive: true }).map(String).filter((f) => f.endsWith('.forge.ron')).sort()
  : [];

test('the repository scenes', { skip: assetFiles.length === 0 && 'no assets/ beside editors/' }, () => {
  for (const file of assetFiles) {
    const text = fs.readFileSync(path.join(ASSETS, file), 'utf8');
    const tokens = tokenize(text);
    for (const token of tokens) {
      const where = `${file}:${token.line} ${JSON.stringify(token.text)}`;
      assertNoScope(token.scopes, 'invalid', where);
      if (token.scopes.length === 1) {
        assert.match(token.text, /^[\s()[\]{}]*$/, `${where} has no scope`);
      }
    }
    const tags = [...text.matchAll(/\btype:\s*(\w+)/g)].length;
    assert.equal(tokens.filter((t) => t.scopes.includes(`support.type.component${S}`)).length, tags, `${file}: tags`);
    const keys = [...text.matchAll(/^ {4}\d+:/gm)].length;
    assert.ok(keys > 0, `${file} has entities`);
    assert.equal(tokens.filter((t) => t.scopes.includes(`entity.name.tag.entity-key${S}`)).length, keys, `${file}: entity keys`);
  }
});
