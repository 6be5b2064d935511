#!/usr/bin/python3
"""Checks petspotd's OpenRPC document (rpc.discover's result) with an independent validator.

    check-openrpc.py DOCUMENT [ANSWERS]

DOCUMENT is the document as JSON. It is validated against the OpenRPC meta-schema kept beside
this script (openrpc-meta-schema.json, with the JSON Schema meta-schema it refers to,
json-schema-tools-meta-schema.json, both resolved here rather than fetched). Then every
example the document gives is held to the document's own schemas, as a client generated from it
would hold the answers it gets: a method's example params each against that param's schema
(none it does not take, every required one given) and its result against the result schema; a
notification's (under x-notifications) params the same way; rpc.discover's result, a document
itself, against the meta-schema too. "$ref"s into "#/components/schemas" are resolved in the
document. ANSWERS, if given, holds one JSON object a line, {"method": NAME, "result": RESULT}:
each result is validated against that method's result schema in the document. Prints one line
per problem and exits 1 when there is any; Debian's python3-jsonschema (4.10) is all it needs.
"""
import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return json.load(f)


def describe(error):
    """An error's message; for a oneOf or anyOf, why the closest alternative failed."""
    if error.context:
        closest = jsonschema.exceptions.best_match(error.context)
        path = "/".join(map(str, closest.relative_path))
        return "fits none of its schemas; the closest: %s%s" % (path + ": " if path else "", closest.message[:300])
    return error.message[:300]


def schema_problems(schema, value, resolver, where):
    """One line per way `value` does not fit `schema`, each naming `where` and the member."""
    validator = jsonschema.Draft7Validator(schema, resolver=resolver)
    return ["%s: %s: %s" % (where, "/".join(map(str, error.absolute_path)) or "(value)", describe(error))
            for error in validator.iter_errors(value)]


def example_problems(document, resolver, meta_validator):
    """Every example of the document against the document's own schemas. Returns the problems
    and the number of examples checked."""
    problems = []
    count = 0
    entries = [("method", m) for m in document.get("methods", [])]
    entries += [("notification", n) for n in document.get("x-notifications", [])]
    for kind, entry in entries:
        params = {p["name"]: p for p in entry.get("params", [])}
        for example in entry.get("examples", []):
            count += 1
            where = "example %r of %s %s" % (example.get("name"), kind, entry["name"])
            given = set()
            for pair in example.get("params", []):
                name = pair["name"]
                if name in given:
                    problems.append("%s: params: %s is given twice" % (where, name))
                given.add(name)
                if name not in params:
                    problems.append("%s: params: %s is no param of %s" % (where, name, entry["name"]))
                    continue
                problems += schema_problems(params[name]["schema"], pair["value"], resolver, "%s: params.%s" % (where, name))
            for name, param in params.items():
                if param.get("required") and name not in given:
                    problems.append("%s: params: %s is required and not given" % (where, name))
            if kind != "method":
                continue
            result = example.get("result")
            if result is None:
                problems.append("%s: no result" % where)
                continue
            problems += schema_problems(entry["result"]["schema"], result["value"], resolver, "%s: result" % where)
            if entry["name"] == "rpc.discover":
                for error in meta_validator.iter_errors(result["value"]):
                    path = "/".join(map(str, error.absolute_path)) or "(value)"
                    problems.append("%s: result, as an OpenRPC document: %s: %s" % (where, path, describe(error)))
    return problems, count


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
    meta_validator = jsonschema.Draft7Validator(meta, resolver=resolver)
    for error in meta_validator.iter_errors(document):
        problems.append("document: %s: %s" % ("/".join(map(str, error.absolute_path)) or "(root)", error.message[:300]))
    if problems:
        for problem in problems:
            print(problem)
        return 1

    # Schemas refer to shared shapes as "#/components/schemas/…" of the document itself.
    document_resolver = jsonschema.RefResolver("", document)
    problems, examples = example_problems(document, document_resolver, meta_validator)

    answers = 0
    if len(argv) == 3:
        methods = {m["name"]: m for m in document["methods"]}
        with open(argv[2], encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                answer = json.loads(line)
                method = methods.get(answer["method"])
                if method is None:
                    problems.append("answer %d: %s is not in the document" % (number, answer["method"]))
                    continue
                problems += schema_problems(method["result"]["schema"], answer["result"], document_resolver,
                                            "answer %d (%s): result" % (number, answer["method"]))
                answers += 1
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("valid: the document, its %d examples against their schemas, and %d answers against their result schemas"
          % (examples, answers))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
