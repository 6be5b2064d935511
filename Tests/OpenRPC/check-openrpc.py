#!/usr/bin/python3
"""Checks petspotd's OpenRPC document (rpc.discover's result) with an independent validator.

    check-openrpc.py DOCUMENT [ANSWERS]

DOCUMENT is the document as JSON. It is validated against the OpenRPC meta-schema kept beside
this script (openrpc-meta-schema.json, with the JSON Schema meta-schema it refers to,
json-schema-tools-meta-schema.json, both resolved here rather than fetched). ANSWERS, if given,
holds one JSON object a line, {"method": NAME, "result": RESULT}: each result is validated
against that method's result schema in the document. Prints one line per problem and exits 1
when there is any; Debian's python3-jsonschema (4.10) is all it needs.
"""
import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        document = json.load(f)
    meta = load("openrpc-meta-schema.json")
    json_schema_meta = load("json-schema-tools-meta-schema.json")
    store = {
        "https://meta.open-rpc.org/": meta,
        "https://meta.json-schema.tools": json_schema_meta,
        "https://meta.json-schema.tools/": json_schema_meta,
    }
    problems = []
    resolver = jsonschema.RefResolver("https://meta.open-rpc.org/", meta, store=store)
    for error in jsonschema.Draft7Validator(meta, resolver=resolver).iter_errors(document):
        problems.append("document: %s: %s" % ("/".join(map(str, error.absolute_path)) or "(root)", error.message[:300]))

    answers = 0
    if len(argv) == 3 and not problems:
        methods = {m["name"]: m for m in document["methods"]}
        # Results refer to shared shapes as "#/components/schemas/…" of the document itself.
        document_resolver = jsonschema.RefResolver("", document)
        with open(argv[2], encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                answer = json.loads(line)
                method = methods.get(answer["method"])
                if method is None:
                    problems.append("answer %d: %s is not in the document" % (number, answer["method"]))
                    continue
                schema = method["result"]["schema"]
                validator = jsonschema.Draft7Validator(schema, resolver=document_resolver)
                for error in validator.iter_errors(answer["result"]):
                    path = "/".join(map(str, error.absolute_path)) or "(result)"
                    problems.append("answer %d (%s): %s: %s" % (number, answer["method"], path, error.message))
                answers += 1
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("valid: the document, and %d answers against their result schemas" % answers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
