#!/usr/bin/env python3
"""Regenerate tests/fixtures/openai-openapi/schemas.json from OpenAI's published OpenAPI document.

    extract_openai_schemas.py OPENAPI_JSON [--legacy-batch OLD_OPENAPI.(json|yaml)]
                              [--source-commit SHA] [--source-date DATE] [-o OUT]

OPENAPI_JSON is `openapi.json` from github.com/openai/openai-openapi (see the fixture's README
for the commit used). Only the schemas execbench talks about, plus every schema they reference
(transitively), are kept. Documentation-only keywords (description, title, examples, x-oaiMeta)
are dropped so the fixture stays small; everything that constrains a value is kept verbatim.

The current document no longer defines the batch file line objects. When --legacy-batch points at
an older revision of the same repository that still has `BatchRequestInput` / `BatchRequestOutput`
(the YAML form needs PyYAML), those two are copied from it and recorded under "legacy_from".

The output is deterministic (sorted keys) so a regeneration shows up as a clean diff.
"""
import argparse
import json
import sys

ROOTS = [
    "CreateChatCompletionRequest",
    "CreateChatCompletionResponse",
    "CreateChatCompletionStreamResponse",
    "Batch",
    "OpenAIFile",
    "Error",
    "ErrorResponse",
    "ListModelsResponse",
    "Model",
]
LEGACY_ROOTS = ["BatchRequestInput", "BatchRequestOutput"]

# Keywords that only document a schema. A key inside "properties" is a property name, never one
# of these, so the walk below only drops them where a schema is expected.
DOC_ONLY = {"description", "title", "example", "examples", "x-oaiMeta", "x-oaiExpandable", "x-oaiTypeLabel"}
SCHEMA_MAP_KEYS = {"properties", "patternProperties", "$defs", "dependentSchemas"}
SCHEMA_KEYS = {"items", "additionalProperties", "unevaluatedProperties", "not", "contains",
               "propertyNames", "if", "then", "else", "unevaluatedItems"}
SCHEMA_LIST_KEYS = {"allOf", "anyOf", "oneOf", "prefixItems"}
REF_PREFIX = "#/components/schemas/"


def strip(schema):
    """A copy of `schema` without documentation-only keywords."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in DOC_ONLY:
            continue
        if key in SCHEMA_MAP_KEYS and isinstance(value, dict):
            out[key] = {name: strip(sub) for name, sub in value.items()}
        elif key in SCHEMA_KEYS and isinstance(value, dict):
            out[key] = strip(value)
        elif key in SCHEMA_LIST_KEYS and isinstance(value, list):
            out[key] = [strip(sub) for sub in value]
        else:
            out[key] = value
    return out


def refs_in(node, found):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF_PREFIX):
            found.add(ref[len(REF_PREFIX):])
        for value in node.values():
            refs_in(value, found)
    elif isinstance(node, list):
        for value in node:
            refs_in(value, found)


def closure(schemas, roots):
    """Names of `roots` and of every schema they reference, directly or not."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in schemas:
            raise SystemExit(f"schema {name!r} is referenced but not defined in the document")
        seen.add(name)
        found = set()
        refs_in(schemas[name], found)
        todo.extend(sorted(found - seen))
    return seen


def load_doc(path):
    with open(path, encoding="utf-8") as f:
        if path.endswith((".yaml", ".yml")):
            try:
                import yaml  # only needed for the legacy YAML revision
            except ImportError:
                raise SystemExit("reading YAML needs PyYAML (it is in requirements.txt)")
            return yaml.safe_load(f)
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("openapi_json")
    ap.add_argument("--legacy-batch", help="older openapi document that still defines BatchRequestInput/Output")
    ap.add_argument("--source-commit", default="")
    ap.add_argument("--source-date", default="")
    ap.add_argument("--legacy-commit", default="")
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args()

    doc = load_doc(args.openapi_json)
    schemas = doc["components"]["schemas"]
    roots = [r for r in ROOTS if r in schemas]
    missing = [r for r in ROOTS if r not in schemas]
    if missing:
        print(f"warning: not in this document: {', '.join(missing)}", file=sys.stderr)
    kept = {name: strip(schemas[name]) for name in sorted(closure(schemas, roots))}

    legacy_from = {}
    present_legacy = [r for r in LEGACY_ROOTS if r in schemas]
    for name in present_legacy:
        kept.update({n: strip(schemas[n]) for n in closure(schemas, [name])})
    if args.legacy_batch and len(present_legacy) < len(LEGACY_ROOTS):
        old = load_doc(args.legacy_batch)["components"]["schemas"]
        for name in LEGACY_ROOTS:
            if name in kept or name not in old:
                continue
            for dep in sorted(closure(old, [name])):
                if dep not in kept:
                    kept[dep] = strip(old[dep])
                    legacy_from[dep] = args.legacy_commit or args.legacy_batch

    out = {
        "source": {
            "repository": "https://github.com/openai/openai-openapi",
            "file": "openapi.json",
            "commit": args.source_commit,
            "date": args.source_date,
            "openapi": doc.get("openapi"),
            "info_version": doc.get("info", {}).get("version"),
            "roots": ROOTS,
            "legacy_from": legacy_from,
        },
        "schemas": dict(sorted(kept.items())),
    }
    text = json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {len(kept)} schemas to {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
