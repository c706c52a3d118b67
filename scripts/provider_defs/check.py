#!/usr/bin/env python3
"""Strictly check JSON bodies sent to / received from model providers against the providers' own
published definitions.

    check.py RECORDS.jsonl      each line: {"label": "...", "kind": "...", "body": <json>}
    check.py --self-test        run the built-in must-pass / must-fail table
    check.py --kinds            list the kinds

Definitions used:
  openai.*     tests/fixtures/openai-openapi/schemas.json (from github.com/openai/openai-openapi,
               see the README next to it), JSON Schema 2020-12, every object schema that lists
               `properties` closed unless it says otherwise (see close_openai_schemas).
  anthropic.*  the `anthropic` SDK's types (TypedDicts for requests, pydantic models for responses).
  gemini.*     the `google-genai` SDK's pydantic types under their camelCase aliases; which REST
               keys exist, and which fields are Vertex-only, is read from the SDK's own
               `_..._to_mldev` / `_..._from_mldev` converters.

Output: one line per problem, `<label> (<kind>): <json path>: <problem>`, then
`checked N records, M problems`. Exit 0 if none, 1 if any, 2 if the input can't be read.
"""
import base64
import collections.abc
import datetime
import enum
import inspect
import json
import os
import re
import sys
import types as pytypes
import typing

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OPENAI_FIXTURE = os.path.join(REPO, "tests", "fixtures", "openai-openapi", "schemas.json")


def jpath(parts):
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if re.fullmatch(r"[A-Za-z_@][\w@]*", str(p)) else f"[{json.dumps(p)}]")
    return out


def short(value, n=60):
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else json.dumps(value)
    return text if len(text) <= n else text[: n - 3] + "..."


# ---------------------------------------------------------------------------------------------
# OpenAI: JSON Schema from the OpenAPI document
# ---------------------------------------------------------------------------------------------

REF_PREFIX = "#/components/schemas/"


def _nullable(schema):
    """OpenAPI 3.0's `nullable: true` (still used throughout this 3.1 document) as JSON Schema."""
    if not schema.pop("nullable", False):
        return schema
    t = schema.get("type")
    if isinstance(t, str):
        schema["type"] = [t, "null"]
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = list(schema["enum"]) + [None]
        return schema
    if isinstance(t, list):
        if "null" not in t:
            schema["type"] = t + ["null"]
        return schema
    return {"anyOf": [schema, {"type": "null"}]}


def _transform(schema, in_allof):
    """Copy of `schema` with $refs pointing into $defs, nullable translated and objects closed.

    An object schema that lists `properties` (or merges branches with allOf) and says nothing
    about additional properties gets `unevaluatedProperties: false`. That keyword sees the
    properties every allOf branch declares, so `allOf: [A, {properties...}]` is closed over the
    union of both; the branches themselves (in_allof=True) stay open, and a $ref inside an allOf
    points at the open copy of the named schema."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and value.startswith(REF_PREFIX):
            name = value[len(REF_PREFIX):]
            out[key] = f"#/$defs/{name}{'__open' if in_allof else ''}"
        elif key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {k: _transform(v, False) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not", "contains", "propertyNames") and isinstance(value, dict):
            out[key] = _transform(value, False)
        elif key in ("anyOf", "oneOf", "prefixItems") and isinstance(value, list):
            out[key] = [_transform(v, in_allof if key != "prefixItems" else False) for v in value]
        elif key == "allOf" and isinstance(value, list):
            out[key] = [_transform(v, True) for v in value]
        else:
            out[key] = value
    out = _nullable(out)
    target = out
    if (not in_allof and ("properties" in target or "allOf" in target)
            and "additionalProperties" not in target and "unevaluatedProperties" not in target
            and "patternProperties" not in target):
        target["unevaluatedProperties"] = False
    return out


class OpenAI:
    # The batch line objects are gone from the current document; the fixture carries them from an
    # older revision (see its README). That revision's BatchRequestInput never listed `body`
    # although its own example has one, so `body` is declared here (and checked separately).
    PATCHES = {"BatchRequestInput": {"body": {"type": "object"}}}

    def __init__(self, path=OPENAI_FIXTURE):
        import jsonschema

        with open(path, encoding="utf-8") as f:
            fixture = json.load(f)
        self.source = fixture["source"]
        raw = fixture["schemas"]
        for name, props in self.PATCHES.items():
            if name in raw:
                raw[name].setdefault("properties", {})
                for k, v in props.items():
                    raw[name]["properties"].setdefault(k, v)
        defs = {}
        for name, schema in raw.items():
            defs[name] = _transform(json.loads(json.dumps(schema)), False)
            defs[name + "__open"] = _transform(json.loads(json.dumps(schema)), True)
        self.defs = defs
        self._validators = {}
        self._jsonschema = jsonschema

    def validator(self, name):
        v = self._validators.get(name)
        if v is None:
            cls = self._jsonschema.Draft202012Validator
            v = cls({"$defs": self.defs, "$ref": f"#/$defs/{name}"})
            self._validators[name] = v
        return v

    def check(self, name, body, prefix=()):
        problems = []
        for err in sorted(self.validator(name).iter_errors(body), key=lambda e: list(map(str, e.absolute_path))):
            problems.extend(self._explain(err, prefix))
        return problems

    def declared(self, schema, seen=None):
        """Property names a schema declares, through $ref and allOf/anyOf/oneOf."""
        seen = set() if seen is None else seen
        if not isinstance(schema, dict) or id(schema) in seen:
            return set()
        seen.add(id(schema))
        out = set(schema.get("properties", {}))
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            out |= self.declared(self.defs.get(ref[len("#/$defs/"):]), seen)
        for key in ("allOf", "anyOf", "oneOf"):
            for sub in schema.get(key, []):
                out |= self.declared(sub, seen)
        return out

    def _explain(self, err, prefix, depth=0):
        path = list(prefix) + list(err.absolute_path)
        if err.context and depth < 8 and err.validator in ("oneOf", "anyOf"):
            branches = collections.defaultdict(list)
            for sub in err.context:
                branches[sub.relative_schema_path[0]].append(sub)
            # Drop branches that failed on what tells the variants apart (a wrong `role`/`type`
            # constant one level down, or the wrong JSON type), then explain the closest one.
            def discriminator_miss(subs):
                for s in subs:
                    rel = list(s.relative_path)
                    if s.validator in ("enum", "const") and len(rel) == 1:
                        return True
                    if s.validator == "type" and not rel:
                        return True
                return False
            near = [subs for subs in branches.values() if not discriminator_miss(subs)]
            if len(near) >= 1:
                best = min(near, key=len)
                out = []
                for sub in best:
                    out.extend(self._explain(sub, prefix, depth + 1))
                return out
            return [(path, f"{short(err.instance)} matches none of: {', '.join(_branch_name(b) for b in err.validator_value)}")]
        msg = err.message
        if err.validator == "unevaluatedProperties":
            extra = re.findall(r"'([^']*)'", msg)
            if extra and isinstance(err.instance, dict):
                # A branch that failed for another reason (reported on its own) leaves its
                # properties "unevaluated"; only keys no branch declares are unknown.
                declared = self.declared(err.schema)
                return [(path + [k], "unknown key (not in the OpenAPI schema)")
                        for k in extra if k in err.instance and k not in declared]
        if len(msg) > 200:
            msg = msg[:197] + "..."
        return [(path, msg)]


def _branch_name(schema):
    if not isinstance(schema, dict):
        return str(schema)
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1].replace("__open", "")
    if "enum" in schema:
        return "one of " + "/".join(short(v, 20) for v in schema["enum"][:6])
    if "type" in schema:
        t = schema["type"]
        return "/".join(t) if isinstance(t, list) else t
    return "a variant"


def openai_batch_input_line(oa, body):
    problems = oa.check("BatchRequestInput", body)
    if isinstance(body, dict):
        for key in ("custom_id", "method", "url", "body"):
            if key not in body:
                problems.append(([key], "missing required key"))
        if body.get("url") == "/v1/chat/completions" and "body" in body:
            problems.extend(oa.check("CreateChatCompletionRequest", body["body"], ("body",)))
        elif "url" in body and body.get("url") not in ("/v1/chat/completions",):
            problems.append((["url"], f"{short(body['url'])}: execbench only sends /v1/chat/completions; body not checked"))
    return problems


def openai_batch_output_line(oa, body):
    problems = oa.check("BatchRequestOutput", body)
    resp = body.get("response") if isinstance(body, dict) else None
    if isinstance(resp, dict) and isinstance(resp.get("body"), dict):
        code = resp.get("status_code")
        if code == 200:
            problems.extend(oa.check("CreateChatCompletionResponse", resp["body"], ("response", "body")))
        elif isinstance(code, int):
            problems.extend(oa.check("ErrorResponse", resp["body"], ("response", "body")))
    return problems


# ---------------------------------------------------------------------------------------------
# SDK types (Anthropic TypedDicts / pydantic models, google-genai pydantic models)
# ---------------------------------------------------------------------------------------------

NoneType = type(None)


class TypeWalker:
    """Checks a JSON value against a Python type annotation, strictly: unknown keys are problems,
    Literal values must match, ints are not bools, every union arm is tried."""

    def __init__(self, camel, exclude=None, vertex_only=None, extra_keys=None, int_strings=False,
                 key_notes=None):
        self.camel = camel                  # pydantic models: use the field alias (camelCase)
        self.exclude = exclude or {}        # model name -> field names that are not on the wire
        self.vertex_only = vertex_only or {}
        self.extra_keys = extra_keys or {}  # model name -> {json key: type} the wire also has
        self.int_strings = int_strings      # proto3 JSON: 64-bit ints may be strings
        self.key_notes = key_notes or {}
        self._fields = {}

    # -- tables of keys --------------------------------------------------------------------
    def fields(self, tp):
        """{json key: (type, required, python name)} for a TypedDict or pydantic model."""
        got = self._fields.get(tp)
        if got is not None:
            return got
        table = {}
        if typing.is_typeddict(tp) or _is_typeddict(tp):
            hints = typing.get_type_hints(tp, include_extras=True)
            declared_required = set(getattr(tp, "__required_keys__", ()))
            for name, hint in hints.items():
                origin = typing.get_origin(hint)
                required = name in declared_required
                if _is_marker(origin, "Required"):
                    required, hint = True, typing.get_args(hint)[0]
                elif _is_marker(origin, "NotRequired"):
                    required, hint = False, typing.get_args(hint)[0]
                key = name
                for meta in _annotated_meta(hint):
                    alias = getattr(meta, "alias", None)
                    if isinstance(alias, str):
                        key = alias
                table[key] = (hint, required, name)
        else:
            excluded = self.exclude.get(tp.__name__, set())
            try:
                hints = typing.get_type_hints(tp, include_extras=True)
            except Exception:
                hints = {}
            for name, info in tp.model_fields.items():
                if name in excluded:
                    continue
                hint = hints.get(name, info.annotation)
                key = info.alias if (info.alias and (self.camel or info.alias != name)) else name
                table[key] = (hint, info.is_required(), name)
            for key, hint in self.extra_keys.get(tp.__name__, {}).items():
                table[key] = (hint, False, key)
        self._fields[tp] = table
        return table

    # -- the walk -------------------------------------------------------------------------
    def check(self, value, tp, path=()):
        path = list(path)
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if tp is typing.Any or tp is object:
            return []
        if origin is typing.Annotated:
            return self.check(value, args[0], path)
        if _is_marker(origin, "Required") or _is_marker(origin, "NotRequired") or _is_marker(origin, "ReadOnly"):
            return self.check(value, args[0], path)
        if isinstance(tp, typing.TypeAliasType if hasattr(typing, "TypeAliasType") else ()):
            return self.check(value, tp.__value__, path)
        if origin is typing.Union or origin is getattr(pytypes, "UnionType", None):
            return self.check_union(value, tp, args, path)
        if origin is typing.Literal or _is_marker(origin, "Literal"):
            if any(_same(value, a) for a in args):
                return []
            return [(path, f"{short(value)} is not one of {', '.join(short(a) for a in args)}")]
        if tp is NoneType or tp is None:
            return [] if value is None else [(path, f"{short(value)} should be null")]
        if value is None:
            return [(path, f"null is not allowed here (expected {_tname(tp)})")]
        if tp is str:
            return [] if isinstance(value, str) else [(path, f"{short(value)} is not a string")]
        if tp is bool:
            return [] if isinstance(value, bool) else [(path, f"{short(value)} is not a boolean")]
        if tp is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return []
            if self.int_strings and isinstance(value, str) and re.fullmatch(r"-?\d+", value):
                return []
            return [(path, f"{short(value)} is not an integer")]
        if tp is float:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return []
            return [(path, f"{short(value)} is not a number")]
        if tp is bytes:
            if not isinstance(value, str):
                return [(path, f"{short(value)} is not a base64 string")]
            try:
                base64.b64decode(value, validate=False) if "-" not in value and "_" not in value else base64.urlsafe_b64decode(value + "==")
            except Exception:
                return [(path, "not valid base64")]
            return []
        if tp in (datetime.datetime, datetime.date):
            if isinstance(value, str):
                try:
                    datetime.datetime.fromisoformat(value.replace("Z", "+00:00")[:26] + ("+00:00" if value.endswith("Z") else ""))
                    return []
                except ValueError:
                    if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value):
                        return []
            return [(path, f"{short(value)} is not an RFC 3339 timestamp")]
        if inspect.isclass(tp) and issubclass(tp, enum.Enum):
            allowed = [m.value for m in tp]
            return [] if value in allowed else [(path, f"{short(value)} is not one of the {tp.__name__} values")]
        if origin in (list, tuple, set, frozenset) or _is_seq(origin):
            if not isinstance(value, list):
                return [(path, f"{short(value)} is not an array")]
            item_tp = args[0] if args else typing.Any
            out = []
            for i, item in enumerate(value):
                out.extend(self.check(item, item_tp, path + [i]))
            return out
        if origin in (dict, collections.abc.Mapping, collections.abc.MutableMapping) or tp is dict:
            if not isinstance(value, dict):
                return [(path, f"{short(value)} is not an object")]
            val_tp = args[1] if len(args) == 2 else typing.Any
            out = []
            for k, v in value.items():
                out.extend(self.check(v, val_tp, path + [k]))
            return out
        if inspect.isclass(tp) and (typing.is_typeddict(tp) or _is_typeddict(tp) or _is_pydantic(tp)):
            return self.check_object(value, tp, path)
        if tp is list:
            return [] if isinstance(value, list) else [(path, f"{short(value)} is not an array")]
        if inspect.isclass(tp) and origin is None and tp.__module__.startswith(("PIL", "httpx")):
            return [(path, f"{tp.__name__} is an SDK-side object, not part of the REST body")]
        return [(path, f"no rule for type {_tname(tp)}")]

    def check_object(self, value, tp, path):
        if not isinstance(value, dict):
            return [(path, f"{short(value)} is not an object (expected {tp.__name__})")]
        table = self.fields(tp)
        vertex = self.vertex_only.get(tp.__name__, set())
        out = []
        for key, item in value.items():
            if key not in table:
                note = self.key_notes.get((tp.__name__, key)) or self.key_notes.get(("*", key))
                snake_hit = next((k for k, f in table.items() if f[2] == key and k != key), None)
                if snake_hit:
                    note = f"REST JSON uses the camelCase name {snake_hit!r}"
                out.append((path + [key], f"unknown key (not in {tp.__name__})" + (f"; {note}" if note else "")))
                continue
            hint, _req, pyname = table[key]
            if pyname in vertex:
                out.append((path + [key], f"Vertex AI only (the SDK refuses {pyname} for the Gemini Developer API)"))
            out.extend(self.check(item, hint, path + [key]))
        for key, (_hint, required, _py) in table.items():
            if required and key not in value:
                out.append((path + [key], f"missing required key (required by {tp.__name__})"))
        return out

    def check_union(self, value, tp, args, path):
        if value is None and NoneType in args:
            return []
        arms = [a for a in args if a is not NoneType]
        results = []
        for arm in arms:
            probs = self.check(value, arm, path)
            if not probs:
                return []
            results.append((arm, probs))
        if len(results) == 1:
            return results[0][1]
        # Only arms of the value's JSON kind (array / object / scalar) say anything useful.
        same_kind = [r for r in results if _json_kind(r[0]) in (_json_kind_of(value), None)]
        if len(same_kind) == 1:
            return same_kind[0][1]
        if same_kind:
            results = same_kind
        # Prefer arms whose discriminator (`type`, `role`, ...) matches the value's.
        if isinstance(value, dict):
            matching = []
            for arm, probs in results:
                d = self._discriminator_match(value, arm)
                if d is True:
                    matching.append((arm, probs))
            if len(matching) >= 1:
                return min(matching, key=lambda r: len(r[1]))[1]
            objs = [r for r in results if _objectish(r[0])]
            disc = self._discriminator_key(objs)
            if disc and disc in value:
                names = sorted({str(l) for arm, _ in objs for l in self._literal_values(arm, disc)})
                return [(path + [disc], f"{short(value[disc])} is not a known {disc} ({', '.join(names[:25])}{', ...' if len(names) > 25 else ''})")]
            if objs:
                return min(objs, key=lambda r: len(r[1]))[1]
        # A scalar vs several shapes: say what was expected.
        return [(path, f"{short(value)} matches none of: {', '.join(_tname(a) for a in arms)[:200]}")]

    def _literal_values(self, arm, key):
        arm = _strip_annotated(arm)
        if not _objectish(arm):
            return []
        field = self.fields(arm).get(key)
        if not field:
            return []
        hint = _strip_annotated(field[0])
        if typing.get_origin(hint) is typing.Union:
            vals = []
            for a in typing.get_args(hint):
                if typing.get_origin(a) is typing.Literal:
                    vals.extend(typing.get_args(a))
            return vals
        if typing.get_origin(hint) is typing.Literal:
            return list(typing.get_args(hint))
        return []

    def _discriminator_key(self, results):
        for key in ("type", "role"):
            if results and all(self._literal_values(arm, key) for arm, _ in results):
                return key
        return None

    def _discriminator_match(self, value, arm):
        for key in ("type", "role"):
            if key in value:
                vals = self._literal_values(arm, key)
                if vals:
                    return value[key] in vals
        return None


def _json_kind_of(value):
    return "array" if isinstance(value, list) else "object" if isinstance(value, dict) else "scalar"


def _json_kind(tp):
    tp = _strip_annotated(tp)
    origin = typing.get_origin(tp)
    if origin in (list, tuple, set, frozenset) or _is_seq(origin) or tp is list:
        return "array"
    if _objectish(tp) or origin in (dict, collections.abc.Mapping) or tp is dict:
        return "object"
    if origin is typing.Union or tp is typing.Any or tp is object:
        return None
    return "scalar"


def _strip_annotated(tp):
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated or _is_marker(origin, "Required") or _is_marker(origin, "NotRequired"):
            tp = typing.get_args(tp)[0]
        else:
            return tp


def _annotated_meta(tp):
    if typing.get_origin(tp) is typing.Annotated:
        return getattr(tp, "__metadata__", ())
    return ()


def _objectish(tp):
    tp = _strip_annotated(tp)
    return inspect.isclass(tp) and (typing.is_typeddict(tp) or _is_typeddict(tp) or _is_pydantic(tp))


def _is_marker(origin, name):
    return origin is not None and getattr(origin, "_name", None) == name or (
        origin is not None and getattr(origin, "__name__", None) == name)


def _is_typeddict(tp):
    try:
        import typing_extensions
        return typing_extensions.is_typeddict(tp)
    except Exception:
        return False


def _is_pydantic(tp):
    try:
        import pydantic
        return inspect.isclass(tp) and issubclass(tp, pydantic.BaseModel)
    except Exception:
        return False


def _is_seq(origin):
    if origin is None:
        return False
    if getattr(origin, "__name__", "") == "SequenceNotStr":
        return True
    return origin in (collections.abc.Iterable, collections.abc.Sequence, collections.abc.Collection,
                      collections.abc.MutableSequence, typing.Iterable, typing.Sequence)


def _same(value, literal):
    if isinstance(literal, bool) or isinstance(value, bool):
        return type(value) is type(literal) and value == literal
    return value == literal


def _tname(tp):
    if inspect.isclass(tp):
        return tp.__name__
    return str(tp).replace("typing.", "")


# ---------------------------------------------------------------------------------------------
# Anthropic
# ---------------------------------------------------------------------------------------------

class Anthropic:
    # Keyword arguments of messages.create() that the SDK sends as headers, not body keys
    # (resources/messages/messages.py: anthropic-user-profile-id / anthropic-workspace-id).
    HEADER_PARAMS = {"user_profile_id", "workspace_id"}
    REMOVED = ("removed from the SDK's Messages types in v1 (MIGRATION.md: 'Current models do not use these "
               "sampling parameters'; older models still accept it via extra_body)")

    def __init__(self):
        import anthropic
        from anthropic import _constants
        from anthropic.types import message_create_params as mcp
        from anthropic.types.messages import batch_create_params as bcp
        from anthropic.types.messages.message_batch import MessageBatch
        from anthropic.types.messages.message_batch_individual_response import MessageBatchIndividualResponse
        from anthropic.types.message import Message
        from anthropic.types.raw_message_stream_event import RawMessageStreamEvent
        from anthropic.types.shared.error_response import ErrorResponse

        self.version = anthropic.__version__
        self.api_version = _constants.ANTHROPIC_API_VERSION
        notes = {("*", k): self.REMOVED for k in ("temperature", "top_p", "top_k")}
        self.walker = TypeWalker(camel=False, key_notes=notes)
        self.request_types = {
            False: mcp.MessageCreateParamsNonStreaming,
            True: mcp.MessageCreateParamsStreaming,
        }
        # Ping is sent as `event: ping` / `data: {"type": "ping"}`; the SDK skips it before
        # decoding (_streaming.py), and `event: error` carries an ErrorResponse.
        self.kinds = {
            "anthropic.messages.request": self.request,
            "anthropic.message": lambda b: self.walker.check(b, Message),
            "anthropic.stream_event": self.stream_event,
            "anthropic.batch.create": lambda b: self.walker.check(b, bcp.BatchCreateParams),
            "anthropic.batch": lambda b: self.walker.check(b, MessageBatch),
            "anthropic.batch.result_line": lambda b: self.walker.check(b, MessageBatchIndividualResponse),
            "anthropic.error": lambda b: self.walker.check(b, ErrorResponse),
        }
        self._event = RawMessageStreamEvent
        self._error = ErrorResponse

    def request(self, body):
        if not isinstance(body, dict):
            return [([], "request body is not an object")]
        streaming = body.get("stream") is True
        out = []
        for key in self.HEADER_PARAMS & set(body):
            out.append(([key], "the SDK sends this as a header (anthropic-" + key.replace("_", "-") + "), not a body key"))
        trimmed = {k: v for k, v in body.items() if k not in self.HEADER_PARAMS}
        return out + self.walker.check(trimmed, self.request_types[streaming])

    def stream_event(self, body):
        if isinstance(body, dict) and body.get("type") == "ping":
            extra = sorted(set(body) - {"type"})
            return [([k], "unknown key in ping event") for k in extra]
        if isinstance(body, dict) and body.get("type") == "error":
            return self.walker.check(body, self._error)
        return self.walker.check(body, self._event)


# ---------------------------------------------------------------------------------------------
# Gemini (google-genai)
# ---------------------------------------------------------------------------------------------

_BLOCK = re.compile(r"if getv\(from_object, \[([^\]]*)\]\) is not None:\s*\n\s*(setv\(\s*(\w+),\s*\[([^\]]*)\]|raise ValueError)")


def _converter_blocks(func):
    """(source path, target object, target path) for each `if getv(...)` block of a converter;
    target is 'raise' for fields the converter refuses."""
    src = inspect.getsource(func)
    out = []
    for m in _BLOCK.finditer(src):
        frm = [s.strip().strip("'\"") for s in m.group(1).split(",")]
        if m.group(2) == "raise ValueError":
            out.append((frm, "raise", None))
        else:
            out.append((frm, m.group(3), [s.strip().strip("'\"") for s in m.group(4).split(",")]))
    return out


def _camel(name):
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


class Gemini:
    SDK_ONLY = {
        # set by the SDK after the HTTP call, never in REST JSON
        "GenerateContentResponse": {"sdk_http_response", "automatic_function_calling_history", "parsed"},
    }

    def __init__(self):
        from google.genai import types, models, batches, version, files
        import google.genai._transformers as tr

        self.version = version.__version__
        t = types
        self.t = t

        # Vertex-only fields, as the Developer-API converters refuse them.
        vertex = collections.defaultdict(set)
        renames = []
        for mod in (models, batches, files):
            for fname, func in inspect.getmembers(mod, inspect.isfunction):
                m = re.fullmatch(r"_(\w+)_to_mldev", fname)
                if not m:
                    continue
                for frm, target, to in _converter_blocks(func):
                    if target == "raise" and len(frm) == 1:
                        vertex[m.group(1)].add(frm[0])
                    elif target == "to_object" and len(frm) == 1 and to and len(to) == 1 and to[0] != _camel(frm[0]):
                        renames.append((m.group(1), frm[0], to[0]))
        vertex["GenerationConfig"] |= vertex["GenerateContentConfig"]
        self.vertex = dict(vertex)
        self.renames = renames

        # The generateContent body: contents + what _GenerateContentConfig_to_mldev writes to the
        # top level (parent_object) or into generationConfig (to_object).
        top, gen = {}, {}
        config_fields = t.GenerateContentConfig.model_fields
        gen_fields = {f: info for f, info in t.GenerationConfig.model_fields.items()}
        hints_cfg = typing.get_type_hints(t.GenerateContentConfig, include_extras=True)
        hints_gen = typing.get_type_hints(t.GenerationConfig, include_extras=True)
        # The SDK turns these friendlier config unions into the REST shapes below.
        rest_types = {
            "systemInstruction": t.Content,
            "tools": list[t.Tool],
            "safetySettings": list[t.SafetySetting],
            "toolConfig": t.ToolConfig,
            "cachedContent": str,
            "speechConfig": t.SpeechConfig,
            "labels": dict[str, str],
        }
        for frm, target, to in _converter_blocks(models._GenerateContentConfig_to_mldev):
            if target == "raise" or not to:
                continue
            field = frm[0]
            rest_key = to[0]
            if rest_key in rest_types:
                hint = rest_types[rest_key]
            elif target == "to_object" and field in gen_fields:
                hint = hints_gen.get(field, gen_fields[field].annotation)
            else:
                hint = hints_cfg.get(field, config_fields[field].annotation if field in config_fields else typing.Any)
            (top if target == "parent_object" else gen)[rest_key] = (hint, field)
        self.top_keys = top
        self.gen_keys = gen

        self.batch_states = re.findall(r"'(BATCH_STATE_\w+)'", inspect.getsource(tr.t_job_state))

        self.walker = TypeWalker(camel=True, exclude=self.SDK_ONLY, vertex_only=self.vertex, int_strings=True)
        self.kinds = {
            "gemini.generate.request": lambda b: self.request(b),
            "gemini.generate.response": lambda b: self.walker.check(b, t.GenerateContentResponse),
            "gemini.batch.create": self.batch_create,
            "gemini.batch": self.batch,
            "gemini.batch.result_line": self.result_line,
            "gemini.batch.file_line": self.file_line,
            "gemini.file": self.file,
            "gemini.error": self.error,
        }

    def request(self, body, path=(), allow_model=False):
        path = list(path)
        if not isinstance(body, dict):
            return [(path, "request body is not an object")]
        out = []
        if "contents" not in body:
            out.append((path + ["contents"], "missing required key"))
        for key, value in body.items():
            if key == "contents":
                out.extend(self.walker.check(value, list[self.t.Content], path + [key]))
            elif key == "model" and allow_model:
                out.extend(self.walker.check(value, str, path + [key]))
            elif key == "generationConfig":
                out.extend(self.generation_config(value, path + [key]))
            elif key in self.top_keys:
                out.extend(self.walker.check(value, self.top_keys[key][0], path + [key]))
            else:
                note = ""
                if key in self.gen_keys:
                    note = f"; it belongs inside generationConfig"
                snake = {f: k for k, (_h, f) in {**self.top_keys}.items()}
                if key in ("model", "stream"):
                    note = "; the model and streaming are chosen by the URL (models/M:generateContent / :streamGenerateContent)"
                if key in snake:
                    note = f"; REST JSON uses the camelCase name {snake[key]!r}"
                out.append((path + [key], "unknown key (not in the generateContent body the SDK builds)" + note))
        return out

    def generation_config(self, value, path):
        if not isinstance(value, dict):
            return [(path, "generationConfig is not an object")]
        out = []
        by_field = {f: k for k, (_h, f) in self.gen_keys.items()}
        for key, item in value.items():
            if key in self.gen_keys:
                out.extend(self.walker.check(item, self.gen_keys[key][0], path + [key]))
            else:
                note = ""
                if key in by_field:
                    note = f"; REST JSON uses the camelCase name {by_field[key]!r}"
                elif key in self.top_keys:
                    note = "; it belongs at the top level of the body"
                elif key in ("maxTokens", "max_tokens"):
                    note = "; the field is maxOutputTokens"
                vertex = next((f for f in self.vertex.get("GenerateContentConfig", ()) if _camel(f) == key), None)
                if vertex:
                    note = f"; {vertex} is Vertex AI only"
                out.append((path + [key], "unknown key (not in generationConfig)" + note))
        return out

    # Batches, as the REST API (not the SDK's BatchJob) shapes them: see batches.py
    # _CreateBatchJobParameters_to_mldev, _BatchJobSource_to_mldev, _InlinedRequest_to_mldev,
    # _BatchJob_from_mldev, _BatchJobDestination_from_mldev, _InlinedResponse_from_mldev.
    def batch_create(self, body):
        out = self._keys(body, [], {"batch"}, required={"batch"})
        batch = body.get("batch") if isinstance(body, dict) else None
        if not isinstance(batch, dict):
            return out
        out += self._keys(batch, ["batch"], {"displayName", "inputConfig", "webhookConfig"}, required={"inputConfig"})
        if "displayName" in batch:
            out += self.walker.check(batch["displayName"], str, ["batch", "displayName"])
        if "webhookConfig" in batch:
            hint = typing.get_type_hints(self.t.CreateBatchJobConfig).get("webhook_config", typing.Any)
            out += self.walker.check(batch["webhookConfig"], hint, ["batch", "webhookConfig"])
        src = batch.get("inputConfig")
        p = ["batch", "inputConfig"]
        if isinstance(src, dict):
            out += self._keys(src, p, {"fileName", "requests"})
            if len([k for k in ("fileName", "requests") if k in src]) != 1:
                out.append((p, "exactly one of fileName / requests (inlined) must be set"))
            if "fileName" in src:
                out += self.walker.check(src["fileName"], str, p + ["fileName"])
            reqs = src.get("requests")
            if reqs is not None:
                out += self._keys(reqs, p + ["requests"], {"requests"}, required={"requests"})
                items = reqs.get("requests") if isinstance(reqs, dict) else None
                if isinstance(items, list):
                    for i, item in enumerate(items):
                        ip = p + ["requests", "requests", i]
                        out += self._keys(item, ip, {"request", "metadata"}, required={"request"})
                        if isinstance(item, dict):
                            if "request" in item:
                                out += self.request(item["request"], ip + ["request"], allow_model=True)
                            if "metadata" in item:
                                out += self.walker.check(item["metadata"], dict[str, str], ip + ["metadata"])
                elif items is not None:
                    out.append((p + ["requests", "requests"], "is not an array"))
        elif src is not None:
            out.append((p, "is not an object"))
        return out

    def batch(self, body):
        # batches.get / batchGenerateContent answer a long-running operation: its metadata is the
        # batch (GenerateContentBatch), its response, once done, the batch's output
        # (GenerateContentBatchOutput, with "@type"). The SDK reads only some of the batch's keys;
        # the Gemini API reference (ai.google.dev/api/batch-api) also names batchStats and
        # priority, which the service sends.
        out = self._keys(body, [], {"name", "metadata", "done", "error", "response"}, required={"name"})
        if not isinstance(body, dict):
            return out
        if "name" in body:
            out += self.walker.check(body["name"], str, ["name"])
        if "done" in body:
            out += self.walker.check(body["done"], bool, ["done"])
        if "error" in body:
            out += self.status(body["error"], ["error"])
        meta = body.get("metadata")
        if meta is not None:
            p = ["metadata"]
            allowed = {"@type", "displayName", "state", "createTime", "endTime", "updateTime", "model", "output",
                       "name", "batchStats", "priority"}
            out += self._keys(meta, p, allowed)
            if isinstance(meta, dict):
                for k in ("displayName", "model", "@type", "name"):
                    if k in meta:
                        out += self.walker.check(meta[k], str, p + [k])
                for k in ("createTime", "endTime", "updateTime"):
                    if k in meta:
                        out += self.walker.check(meta[k], datetime.datetime, p + [k])
                if "state" in meta and meta["state"] not in self.batch_states:
                    out.append((p + ["state"], f"{short(meta['state'])} is not one of {', '.join(self.batch_states)}"))
                if "priority" in meta:
                    out += self.walker.check(meta["priority"], int, p + ["priority"])
                stats = meta.get("batchStats")
                if stats is not None:
                    counts = {"requestCount", "successfulRequestCount", "failedRequestCount", "pendingRequestCount"}
                    out += self._keys(stats, p + ["batchStats"], counts)
                    for k in counts & set(stats if isinstance(stats, dict) else {}):
                        out += self.walker.check(stats[k], int, p + ["batchStats", k])
                if "output" in meta:
                    out += self._output(meta["output"], p + ["output"], with_type=False)
        if "response" in body:
            out += self._output(body["response"], ["response"], with_type=True)
        return out

    def _output(self, dest, dp, with_type):
        # GenerateContentBatchOutput: a responses file's name, or the responses inline.
        if not isinstance(dest, dict):
            return [(dp, "is not an object")]
        out = self._keys(dest, dp, {"responsesFile", "inlinedResponses"} | ({"@type"} if with_type else set()))
        if "@type" in dest:
            out += self.walker.check(dest["@type"], str, dp + ["@type"])
        if "responsesFile" in dest:
            out += self.walker.check(dest["responsesFile"], str, dp + ["responsesFile"])
        inl = dest.get("inlinedResponses")
        if inl is not None:
            out += self._keys(inl, dp + ["inlinedResponses"], {"inlinedResponses"})
            items = inl.get("inlinedResponses") if isinstance(inl, dict) else None
            for i, item in enumerate(items if isinstance(items, list) else []):
                ip = dp + ["inlinedResponses", "inlinedResponses", i]
                out += self._keys(item, ip, {"response", "metadata", "error"})
                if isinstance(item, dict):
                    if "response" in item:
                        out += self.walker.check(item["response"], self.t.GenerateContentResponse, ip + ["response"])
                    if "metadata" in item:
                        out += self.walker.check(item["metadata"], dict[str, typing.Any], ip + ["metadata"])
                    if "error" in item:
                        out += self.walker.check(item["error"], self.t.JobError, ip + ["error"])
        return out

    def file_line(self, body):
        # A line of a batch's input file. Not defined by the SDK (it uploads files it is given);
        # shape from the Gemini Batch API docs: the request under "request", named by "key".
        out = self._keys(body, [], {"key", "request"}, required={"key", "request"})
        if isinstance(body, dict):
            if "key" in body:
                out += self.walker.check(body["key"], str, ["key"])
            if "request" in body:
                out += self.request(body["request"], ["request"], allow_model=True)
        return out

    def result_line(self, body):
        # Not defined by the SDK (it never reads result files). Shape from the Gemini Batch API
        # docs: each output line is a GenerateContentResponse or a status, keyed by the input
        # line's `key`.
        out = self._keys(body, [], {"key", "response", "error"})
        if not isinstance(body, dict):
            return out
        if "key" in body:
            out += self.walker.check(body["key"], str, ["key"])
        if ("response" in body) == ("error" in body):
            out.append(([], "exactly one of response / error must be present"))
        if "response" in body:
            out += self.walker.check(body["response"], self.t.GenerateContentResponse, ["response"])
        if "error" in body:
            out += self.status(body["error"], ["error"])
        return out

    def file(self, body):
        # media.upload answers {"file": File}; files.get answers the File itself.
        if isinstance(body, dict) and set(body) == {"file"}:
            return self.walker.check(body["file"], self.t.File, ["file"])
        return self.walker.check(body, self.t.File)

    def status(self, value, path):
        """google.rpc.Status as errors.py reads it: code, message, status, details."""
        out = self._keys(value, path, {"code", "message", "status", "details"})
        if isinstance(value, dict):
            if "code" in value and (not isinstance(value["code"], int) or isinstance(value["code"], bool)):
                out.append((path + ["code"], f"{short(value['code'])} is not an integer"))
            for k, tp in (("message", str), ("status", str), ("details", list[dict[str, typing.Any]])):
                if k in value:
                    out += self.walker.check(value[k], tp, path + [k])
        return out

    def error(self, body):
        out = self._keys(body, [], {"error"}, required={"error"})
        if isinstance(body, dict) and "error" in body:
            out += self.status(body["error"], ["error"])
            if isinstance(body["error"], dict):
                for k in ("code", "message", "status"):
                    if k not in body["error"]:
                        out.append((["error", k], "missing (errors.APIError reads it)"))
        return out

    @staticmethod
    def _keys(value, path, allowed, required=()):
        path = list(path)
        if not isinstance(value, dict):
            return [(path, f"{short(value)} is not an object")]
        out = [(path + [k], "unknown key") for k in value if k not in allowed]
        out += [(path + [k], "missing required key") for k in sorted(required) if k not in value]
        return out


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------

OPENAI_KINDS = {
    "openai.chat.request": "CreateChatCompletionRequest",
    "openai.chat.response": "CreateChatCompletionResponse",
    "openai.chat.chunk": "CreateChatCompletionStreamResponse",
    "openai.batch": "Batch",
    "openai.file": "OpenAIFile",
    "openai.models": "ListModelsResponse",
    "openai.error": "ErrorResponse",
}
KINDS = sorted(list(OPENAI_KINDS) + ["openai.batch.input_line", "openai.batch.output_line"] + [
    "anthropic.messages.request", "anthropic.message", "anthropic.stream_event", "anthropic.batch.create",
    "anthropic.batch", "anthropic.batch.result_line", "anthropic.error",
    "gemini.generate.request", "gemini.generate.response", "gemini.batch.create", "gemini.batch",
    "gemini.batch.result_line", "gemini.batch.file_line", "gemini.file", "gemini.error"])


class Checker:
    def __init__(self):
        self._oa = self._an = self._ge = None

    @property
    def oa(self):
        if self._oa is None:
            self._oa = OpenAI()
        return self._oa

    @property
    def an(self):
        if self._an is None:
            self._an = Anthropic()
        return self._an

    @property
    def ge(self):
        if self._ge is None:
            self._ge = Gemini()
        return self._ge

    def check(self, kind, body):
        if kind in OPENAI_KINDS:
            return self.oa.check(OPENAI_KINDS[kind], body)
        if kind == "openai.batch.input_line":
            return openai_batch_input_line(self.oa, body)
        if kind == "openai.batch.output_line":
            return openai_batch_output_line(self.oa, body)
        if kind.startswith("anthropic.") and kind in KINDS:
            return self.an.kinds[kind](body)
        if kind.startswith("gemini.") and kind in KINDS:
            return self.ge.kinds[kind](body)
        return [([], f"unknown kind {kind!r} (known: {', '.join(KINDS)})")]


def run_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        print(f"cannot read {path}: {e}", file=sys.stderr)
        return 2
    records = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            print(f"{path}:{n}: not JSON: {e}", file=sys.stderr)
            return 2
        if not isinstance(rec, dict) or "kind" not in rec or "body" not in rec:
            print(f"{path}:{n}: a record needs \"kind\" and \"body\"", file=sys.stderr)
            return 2
        records.append(rec)
    checker = Checker()
    problems = 0
    for rec in records:
        label = rec.get("label", "?")
        kind = rec["kind"]
        for p, msg in checker.check(kind, rec["body"]):
            problems += 1
            print(f"{label} ({kind}): {jpath(p)}: {msg}")
    print(f"checked {len(records)} records, {problems} problems")
    return 1 if problems else 0


# ---------------------------------------------------------------------------------------------
# Self-test: (kind, must_pass, body, what must be mentioned when it fails)
# ---------------------------------------------------------------------------------------------

OA_REQ = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
OA_RESP = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
           "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                        "message": {"role": "assistant", "content": "hello", "refusal": None}}],
           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
OA_CHUNK = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini",
            "choices": [{"index": 0, "delta": {"content": "he"}, "finish_reason": None}]}
AN_REQ = {"model": "claude-x", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
AN_MSG = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
          "content": [{"type": "text", "text": "hello", "citations": None}], "stop_reason": "end_turn",
          "stop_sequence": None,
          "usage": {"input_tokens": 1, "output_tokens": 1}}
GE_REQ = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
          "generationConfig": {"maxOutputTokens": 64, "temperature": 0.5}}
GE_RESP = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hello"}]}, "finishReason": "STOP", "index": 0}],
           "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
           "modelVersion": "gemini-x", "responseId": "r1"}


def _with(base, **kw):
    out = json.loads(json.dumps(base))
    out.update(kw)
    return out


SELF_TEST = [
    ("openai.chat.request", True, OA_REQ, None),
    ("openai.chat.request", True, _with(OA_REQ, max_completion_tokens=10, temperature=0.2, top_p=1, n=1, stream=True,
                                         stream_options={"include_usage": True}, stop=["x"], reasoning_effort="low",
                                         metadata={"a": "b"}, response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object", "anything": 1}}}), None),
    ("openai.chat.request", False, _with(OA_REQ, foo=1), "foo"),
    ("openai.chat.request", False, _with(OA_REQ, temperature="hot"), "temperature"),
    ("openai.chat.request", False, _with(OA_REQ, stream_options={"include_usage": True, "x": 1}), "stream_options.x"),
    ("openai.chat.request", False, {"model": "m", "messages": [{"role": "user", "content": "hi", "extra": 1}]}, "messages[0].extra"),
    ("openai.chat.request", False, {"model": "m", "messages": [{"role": "wizard", "content": "hi"}]}, "messages[0]"),
    ("openai.chat.request", False, {"model": "m"}, "messages"),
    ("openai.chat.request", False, _with(OA_REQ, reasoning_effort="extreme"), "reasoning_effort"),
    ("openai.chat.response", True, OA_RESP, None),
    ("openai.chat.response", False, _with(OA_RESP, extra=True), "extra"),
    ("openai.chat.response", False, _with(OA_RESP, usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2, "x": 1}), "usage.x"),
    ("openai.chat.chunk", True, OA_CHUNK, None),
    ("openai.chat.chunk", False, _with(OA_CHUNK, object="chat.completion"), "object"),
    ("openai.batch.input_line", True, {"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": OA_REQ}, None),
    ("openai.batch.input_line", False, {"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": _with(OA_REQ, foo=1)}, "body.foo"),
    ("openai.batch.input_line", False, {"custom_id": "a", "method": "GET", "url": "/v1/chat/completions", "body": OA_REQ}, "method"),
    ("openai.batch.output_line", True, {"id": "b1", "custom_id": "a", "response": {"status_code": 200, "request_id": "r", "body": OA_RESP}, "error": None}, None),
    ("openai.batch.output_line", False, {"id": "b1", "custom_id": "a", "response": {"status_code": 200, "request_id": "r", "body": _with(OA_RESP, x=1)}, "error": None}, "response.body.x"),
    ("openai.batch", True, {"id": "batch_1", "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": "file-1",
                            "completion_window": "24h", "status": "completed", "created_at": 1, "output_file_id": "file-2",
                            "request_counts": {"total": 1, "completed": 1, "failed": 0}, "metadata": None}, None),
    ("openai.batch", False, {"id": "batch_1", "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": "file-1",
                             "completion_window": "24h", "status": "done", "created_at": 1}, "status"),
    ("openai.file", True, {"id": "file-1", "object": "file", "bytes": 10, "created_at": 1, "filename": "in.jsonl",
                           "purpose": "batch", "status": "processed"}, None),
    ("openai.file", False, {"id": "file-1", "object": "file", "bytes": 10, "created_at": 1, "filename": "in.jsonl",
                            "purpose": "batch", "status": "processed", "size": 10}, "size"),
    ("openai.error", True, {"error": {"message": "bad", "type": "invalid_request_error", "param": None, "code": None}}, None),
    ("openai.error", False, {"error": {"message": "bad", "type": "invalid_request_error"}}, "error"),
    ("openai.models", True, {"object": "list", "data": [{"id": "gpt-4o", "object": "model", "created": 1, "owned_by": "openai"}]}, None),
    ("openai.models", False, {"object": "list", "data": [{"id": "gpt-4o", "object": "model", "created": 1, "owned_by": "openai", "x": 1}]}, "data[0].x"),
    ("openai.unknown", False, {}, "unknown kind"),

    ("anthropic.messages.request", True, AN_REQ, None),
    ("anthropic.messages.request", True, _with(AN_REQ, system="be brief", stop_sequences=["x"], stream=True,
                                                thinking={"type": "enabled", "budget_tokens": 1024}), None),
    ("anthropic.messages.request", False, _with(AN_REQ, foo=1), "foo"),
    ("anthropic.messages.request", False, _with(AN_REQ, max_tokens="many"), "max_tokens"),
    ("anthropic.messages.request", False, _with(AN_REQ, thinking={"type": "on", "budget_tokens": 1024}), "thinking"),
    ("anthropic.messages.request", False, _with(AN_REQ, thinking={"type": "enabled"}), "thinking.budget_tokens"),
    ("anthropic.messages.request", False, {"model": "m", "messages": []}, "max_tokens"),
    ("anthropic.messages.request", False, _with(AN_REQ, messages=[{"role": "user", "content": [{"type": "text", "text": "x", "y": 1}]}]), "messages[0].content[0].y"),
    ("anthropic.messages.request", False, _with(AN_REQ, stream="yes"), "stream"),
    ("anthropic.message", True, AN_MSG, None),
    ("anthropic.message", False, _with(AN_MSG, role="user"), "role"),
    ("anthropic.message", False, _with(AN_MSG, extra=1), "extra"),
    ("anthropic.stream_event", True, {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "h"}}, None),
    ("anthropic.stream_event", True, {"type": "ping"}, None),
    ("anthropic.stream_event", False, {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "txt": "h"}}, "delta"),
    ("anthropic.stream_event", False, {"type": "nonsense"}, "type"),
    ("anthropic.batch.create", True, {"requests": [{"custom_id": "a", "params": AN_REQ}]}, None),
    ("anthropic.batch.create", False, {"requests": [{"custom_id": "a", "params": _with(AN_REQ, foo=2)}]}, "requests[0].params.foo"),
    ("anthropic.batch.create", False, {"requests": [{"custom_id": "a", "params": _with(AN_REQ, stream=True)}]}, "stream"),
    ("anthropic.batch.result_line", True, {"custom_id": "a", "result": {"type": "succeeded", "message": AN_MSG}}, None),
    ("anthropic.batch.result_line", False, {"custom_id": "a", "result": {"type": "succeeded"}}, "message"),
    ("anthropic.error", True, {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}, None),
    ("anthropic.error", False, {"type": "error", "error": {"type": "bogus_error", "message": "bad"}}, "error"),

    ("gemini.generate.request", True, GE_REQ, None),
    ("gemini.generate.request", True, _with(GE_REQ, systemInstruction={"parts": [{"text": "be brief"}]},
                                             generationConfig={"temperature": 0.1, "topP": 0.9, "maxOutputTokens": 10, "candidateCount": 1,
                                                               "stopSequences": ["x"], "thinkingConfig": {"thinkingBudget": 128}},
                                             safetySettings=[{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]), None),
    ("gemini.generate.request", False, _with(GE_REQ, generationConfig={"maxTokens": 10}), "generationConfig.maxTokens"),
    ("gemini.generate.request", False, _with(GE_REQ, generationConfig={"max_output_tokens": 10}), "camelCase"),
    ("gemini.generate.request", False, _with(GE_REQ, generationConfig={"thinkingConfig": {"budget": 1}}), "thinkingConfig.budget"),
    ("gemini.generate.request", False, _with(GE_REQ, contents=[{"role": "user", "parts": [{"txt": "hi"}]}]), "parts[0].txt"),
    ("gemini.generate.request", False, _with(GE_REQ, temperature=0.3), "generationConfig"),
    ("gemini.generate.request", False, _with(GE_REQ, safetySettings=[{"category": "HARM_CATEGORY_X", "threshold": "BLOCK_NONE"}]), "category"),
    ("gemini.generate.response", True, GE_RESP, None),
    ("gemini.generate.response", False, _with(GE_RESP, sdkHttpResponse={}), "sdkHttpResponse"),
    ("gemini.generate.response", False, _with(GE_RESP, candidates=[{"finishReason": "DONE"}]), "finishReason"),
    ("gemini.batch.create", True, {"batch": {"displayName": "x", "inputConfig": {"requests": {"requests": [{"request": GE_REQ, "metadata": {"key": "a"}}]}}}}, None),
    ("gemini.batch.create", True, {"batch": {"displayName": "x", "inputConfig": {"fileName": "files/abc"}}}, None),
    ("gemini.batch.create", False, {"batch": {"inputConfig": {"requests": {"requests": [{"request": _with(GE_REQ, foo=1)}]}}}}, "foo"),
    ("gemini.batch.create", False, {"batch": {"inputConfig": {"gcsUri": "gs://x"}}}, "gcsUri"),
    ("gemini.batch", True, {"name": "batches/1", "metadata": {"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
                                                             "displayName": "x", "state": "BATCH_STATE_SUCCEEDED", "model": "models/gemini-x",
                                                             "createTime": "2026-01-01T00:00:00Z",
                                                             "output": {"inlinedResponses": {"inlinedResponses": [{"response": GE_RESP, "metadata": {"key": "a"}}]}}}, "done": True}, None),
    ("gemini.batch", False, {"name": "batches/1", "metadata": {"state": "JOB_STATE_SUCCEEDED"}}, "state"),
    ("gemini.batch.result_line", True, {"key": "a", "response": GE_RESP}, None),
    ("gemini.batch.result_line", False, {"key": "a", "response": _with(GE_RESP, x=1)}, "response.x"),
    ("gemini.file", True, {"file": {"name": "files/abc", "mimeType": "application/jsonl", "sizeBytes": "12", "state": "ACTIVE",
                                    "uri": "https://x", "createTime": "2026-01-01T00:00:00.123456Z", "source": "UPLOADED"}}, None),
    ("gemini.file", False, {"name": "files/abc", "mime_type": "x"}, "mime_type"),
    ("gemini.error", True, {"error": {"code": 400, "message": "bad", "status": "INVALID_ARGUMENT"}}, None),
    ("gemini.error", False, {"error": {"code": "400", "message": "bad", "status": "INVALID_ARGUMENT"}}, "code"),
]


def self_test(verbose=False):
    checker = Checker()
    bad = 0
    for i, (kind, must_pass, body, mention) in enumerate(SELF_TEST):
        probs = checker.check(kind, body)
        text = "; ".join(f"{jpath(p)}: {m}" for p, m in probs)
        ok = (not probs) if must_pass else bool(probs) and (mention is None or mention in text)
        if not ok or verbose:
            state = "ok  " if ok else "FAIL"
            want = "pass" if must_pass else f"fail mentioning {mention!r}"
            print(f"{state} #{i} {kind}: want {want}; got {text or 'no problems'}")
        bad += not ok
    an, ge, oa = checker.an, checker.ge, checker.oa
    print(f"self-test: {len(SELF_TEST) - bad}/{len(SELF_TEST)} as expected "
          f"(anthropic {an.version}, anthropic-version {an.api_version}; google-genai {ge.version}; "
          f"openai-openapi {oa.source.get('commit', '')[:12]})")
    return 1 if bad else 0


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test(verbose="-v" in argv)
    if argv[1:2] == ["--kinds"]:
        print("\n".join(KINDS))
        return 0
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return run_file(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
