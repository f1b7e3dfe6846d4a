#!/usr/bin/env python3
"""Extracts the provider request-part schemas contractcheck pins (schemas/providers/) from the
OpenAI OpenAPI description (openai/openai-openapi, openapi.json).

    scripts/extract-provider-schemas.py OPENAPI_JSON OUT_DIR

Each output file is one component schema with every #/components/schemas/X reference it reaches
copied under $defs and rewritten to #/$defs/X; nothing else is changed (OpenAPI 3.1 component
schemas are JSON Schema 2020-12; the x-stainless-* and discriminator keywords are annotations).
schemas/providers/PROVENANCE.md names the source commit and sha256.
"""
import json
import sys

PARTS = {
    "openai-responses-input-text": "InputTextContentParam",
    "openai-responses-input-image": "InputImageContentParamAutoParam",
    "openai-responses-input-file": "InputFileContentParam",
    "openai-chat-image-url": "ChatCompletionRequestMessageContentPartImage",
}
PREFIX = "#/components/schemas/"


def refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith(PREFIX):
            out.add(r[len(PREFIX):])
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def rewrite(node):
    if isinstance(node, dict):
        return {k: ("#/$defs/" + v[len(PREFIX):] if k == "$ref" and isinstance(v, str) and v.startswith(PREFIX) else rewrite(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [rewrite(v) for v in node]
    return node


def main():
    spec = json.load(open(sys.argv[1]))
    comps = spec["components"]["schemas"]
    for name, comp in PARTS.items():
        seen, todo = set(), {comp}
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            found = set()
            refs(comps[n], found)
            todo |= found - seen
        doc = {"$schema": "https://json-schema.org/draft/2020-12/schema",
               "$comment": "Extracted from openai/openai-openapi openapi.json #/components/schemas/%s; see PROVENANCE.md." % comp}
        doc.update(rewrite(comps[comp]))
        defs = {n: rewrite(comps[n]) for n in sorted(seen - {comp})}
        if defs:
            doc["$defs"] = defs
        with open("%s/%s.schema.json" % (sys.argv[2], name), "w") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
