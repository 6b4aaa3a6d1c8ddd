"""Checks OpenLineage events (a JSON-lines file) with the OpenLineage Python client.

Each event is parsed into the client's own classes (openlineage.client.event_v2 and its generated facets), which
are generated from the OpenLineage JSON Schemas of the client's version and run their validators: required fields,
UUID run ids, timestamps with a time. A key the classes do not have is an error, not ignored. Each standard facet must
name the schema URL of its class in this client; each of our custom facets (`dataops_*`) must validate against its
JSON Schema in contract/lineage/. Finally the parsed event, written back by the client (Serde), must equal the input
(but for the empty defaults the client fills in).

Usage: python check_events.py <events.jsonl> <contract/lineage dir>
Prints one line per problem and exits 1 if there is any; else prints how many events were checked.
"""

import enum
import importlib
import json
import pkgutil
import sys
import types
import typing
from pathlib import Path

import attr
import jsonschema
import openlineage.client.generated as generated
from openlineage.client import event_v2
from openlineage.client.generated.base import BaseFacet
from openlineage.client.serde import Serde


def facet_classes():
    """Every facet class of the client, by the schema URL it writes."""
    by_url = {}
    for info in pkgutil.iter_modules(generated.__path__):
        module = importlib.import_module(f"{generated.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaseFacet) and value.__module__ == module.__name__:
                try:
                    by_url[value._get_schema()] = value
                except Exception:  # noqa: BLE001 - a base class without a schema of its own
                    pass
    return by_url


FACETS = facet_classes()


class Problem(Exception):
    pass


def init_name(field):
    return field.alias if getattr(field, "alias", None) else field.name.lstrip("_")


def structure(tp, data, path, schemas):
    """`data` as an instance of type `tp`, or Problem naming `path`."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        return structure(options[0], data, path, schemas)
    if origin is list:
        if not isinstance(data, list):
            raise Problem(f"{path}: expected a list")
        return [structure(args[0], v, f"{path}[{i}]", schemas) for i, v in enumerate(data)]
    if origin is dict:
        if not isinstance(data, dict):
            raise Problem(f"{path}: expected an object")
        if isinstance(args[1], type) and issubclass(args[1], BaseFacet):
            return {k: facet(args[1], v, f"{path}.{k}", schemas) for k, v in data.items()}
        return {k: structure(args[1], v, f"{path}.{k}", schemas) for k, v in data.items()}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            raise Problem(f"{path}: {data!r} is not one of {[e.value for e in tp]}") from None
    if tp is typing.Any:
        return data
    if isinstance(tp, type) and attr.has(tp):
        return build(tp, data, path, schemas)
    expected = {str: str, int: int, float: (int, float), bool: bool}.get(tp)
    if expected is None:
        raise Problem(f"{path}: no check for type {tp}")
    if not isinstance(data, expected) or (tp is int and isinstance(data, bool)):
        raise Problem(f"{path}: expected {tp.__name__}, got {data!r}")
    return data


def build(cls, data, path, schemas):
    if not isinstance(data, dict):
        raise Problem(f"{path}: expected an object for {cls.__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in attr.fields(cls)}
    known = set(fields)
    unknown = sorted(k for k in data if k not in known)
    if unknown:
        raise Problem(f"{path}: {cls.__name__} has no field {', '.join(unknown)}")
    kwargs = {}
    for name, field in fields.items():
        if name not in data or not field.init:
            continue
        kwargs[init_name(field)] = structure(hints[name], data[name], f"{path}.{name}", schemas)
    try:
        obj = cls(**kwargs)
    except Exception as err:  # noqa: BLE001 - the client's validators raise ValueError, TypeError
        raise Problem(f"{path}: {cls.__name__} refuses it: {err}") from None
    for name, field in fields.items():
        if not field.init and name in data and getattr(obj, name) != data[name]:
            raise Problem(f"{path}.{name}: {data[name]!r}, but this client's {cls.__name__} is {getattr(obj, name)!r}")
    return obj


def facet(base, data, path, schemas):
    if not isinstance(data, dict) or "_schemaURL" not in data or "_producer" not in data:
        raise Problem(f"{path}: a facet needs _producer and _schemaURL")
    name = path.rsplit(".", 1)[-1]
    if name.startswith("dataops_"):
        schema_name = data["_schemaURL"].rsplit("/", 1)[-1]
        schema_file = schemas / schema_name
        if not schema_file.exists():
            raise Problem(f"{path}: no schema {schema_name} in {schemas}")
        errors = list(jsonschema.Draft202012Validator(json.loads(schema_file.read_text())).iter_errors(data))
        if errors:
            raise Problem(f"{path}: {errors[0].message} (at {list(errors[0].absolute_path)})")
        return data
    cls = FACETS.get(data["_schemaURL"])
    if cls is None:
        raise Problem(f"{path}: {data['_schemaURL']} is no facet of openlineage-python (a wrong name or version)")
    if not issubclass(cls, base):
        raise Problem(f"{path}: {cls.__name__} is not a {base.__name__}")
    return build(cls, data, path, schemas)


def without_nulls(value):
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def first_difference(a, b, path="$"):
    """The path of the first place where `a` and `b` differ, and what each has there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a and b[key] in ({}, []):
                continue  # a default the client fills in (an empty facets map, no outputs)
            if key not in a or key not in b:
                return f"{path}.{key}: {a.get(key, '(absent)')!r} / {b.get(key, '(absent)')!r}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items / {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r} / {b!r}"


def main():
    events_file, schemas = Path(sys.argv[1]), Path(sys.argv[2])
    problems = []
    lines = [line for line in events_file.read_text().splitlines() if line.strip()]
    for n, line in enumerate(lines, 1):
        data = json.loads(line)
        try:
            event = build(event_v2.RunEvent, data, f"event {n}", schemas)
        except Problem as problem:
            problems.append(str(problem))
            continue
        back = json.loads(Serde.to_json(event))
        difference = first_difference(without_nulls(data), back)
        if difference:
            problems.append(f"event {n}: written back by the client it differs (ours / the client's): {difference}")
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    print(f"{len(lines)} events parsed by openlineage-python and checked")


if __name__ == "__main__":
    main()
