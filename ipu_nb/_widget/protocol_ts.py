"""js/kernel/generated.ts, written from `ipu_nb._widget.protocol`: the messages' TypeScript types, checks and layouts.

Every TypedDict of the protocol becomes an interface (its docstrings as JSDoc) and a run-time
check built from js/kernel/checks.ts (``record``, ``optional``, ``nullable``, ...); the replies
of `protocol.VARIANTS` become unions on their tag; `protocol.LAYOUTS` becomes ``LAYOUTS``,
which js/kernel/buffers.ts decodes by. The text is what biome's formatter leaves as it is.

>>> "export interface HoverReply {" in typescript()
True
"""

from __future__ import annotations

import ast
import inspect
import json
import sys
import textwrap
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import protocol
from .protocol import Layout, Wire

if sys.version_info >= (3, 11):
    from typing import NotRequired, Required
else:  # pragma: no cover - Python 3.10
    from typing_extensions import NotRequired, Required

__all__ = [
    "COMMAND",
    "Field",
    "Message",
    "ProtocolSourceError",
    "Variant",
    "layout_docs",
    "messages",
    "ts_type",
    "typescript",
    "variants",
]

#: The command that writes every generated file of the protocol.
COMMAND = "python -m ipu_nb._widget.protocol_gen"
_WIDTH = 120  # biome's line width (biome.jsonc)


class ProtocolSourceError(TypeError):
    """The protocol module holds something the generator cannot write in TypeScript (it names the field)."""


@dataclass(frozen=True)
class Field:
    """One key of a message: its annotation (``NotRequired``, ``Annotated`` as written), whether required, its doc."""

    name: str
    annotation: Any
    required: bool
    doc: str


@dataclass(frozen=True)
class Message:
    """A TypedDict of the protocol: its own fields, every field (inherited first), its TypedDict bases and doc."""

    name: str
    own: tuple[Field, ...]
    fields: tuple[Field, ...]
    bases: tuple[str, ...]
    doc: str


def _is_typeddict(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, dict) and hasattr(value, "__required_keys__")


def _class_source(cls: type) -> ast.ClassDef:
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    node = tree.body[0]
    if not isinstance(node, ast.ClassDef):
        raise ProtocolSourceError(f"{cls.__name__}: its source is not a class statement")
    return node


def _docs(node: ast.ClassDef) -> tuple[str, list[str], dict[str, str]]:
    """The class docstring, its own field names in order and each field's docstring (the string after it)."""
    doc = ast.get_docstring(node) or ""
    names: list[str] = []
    field_docs: dict[str, str] = {}
    for i, statement in enumerate(node.body):
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.append(statement.target.id)
            after = node.body[i + 1] if i + 1 < len(node.body) else None
            if (
                isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                field_docs[statement.target.id] = inspect.cleandoc(after.value.value)
    return doc, names, field_docs


def _message(cls: Any, namespace: dict[str, Any]) -> Message:
    node = _class_source(cls)
    doc, own_names, field_docs = _docs(node)
    bases = tuple(b.id for b in node.bases if isinstance(b, ast.Name) and b.id != "TypedDict")
    hints = typing.get_type_hints(cls, include_extras=True)
    inherited: list[Field] = []
    for base in bases:
        if not _is_typeddict(namespace.get(base)):
            raise ProtocolSourceError(f"{cls.__name__}: its base {base} is not a TypedDict of the protocol")
        inherited.extend(_message(namespace[base], namespace).fields)
    own = tuple(Field(n, hints[n], n in cls.__required_keys__, field_docs.get(n, "")) for n in own_names)
    fields = tuple(f for f in inherited if f.name not in own_names) + own
    if {f.name for f in fields} != set(hints):
        raise ProtocolSourceError(f"{cls.__name__}: fields {sorted(set(hints))} are not all declared in its source")
    return Message(cls.__name__, own, fields, bases, doc)


def messages(namespace: dict[str, Any] | None = None) -> list[Message]:
    """Every TypedDict of `protocol` (or of `namespace`), in the order the module defines (or imports) them."""
    namespace = vars(protocol) if namespace is None else namespace
    return [_message(value, namespace) for value in namespace.values() if _is_typeddict(value)]


# ---- annotations as TypeScript ---------------------------------------------------------------------


def _shape(annotation: Any) -> Any:
    """`annotation` without ``NotRequired``, with an ``Annotated[..., Wire(shape)]`` as its shape."""
    origin = typing.get_origin(annotation)
    if origin in (NotRequired, Required):
        return _shape(typing.get_args(annotation)[0])
    if origin is typing.Annotated:
        base, *extras = typing.get_args(annotation)
        wires = [extra for extra in extras if isinstance(extra, Wire)]
        return _shape(wires[0].shape if wires else base)
    return annotation


def _members(annotation: Any) -> list[Any] | None:
    """The members of a union (None for anything else)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return list(typing.get_args(annotation))
    return None


_PRIMITIVES: dict[Any, tuple[str, str]] = {
    str: ("string", "string"),
    bool: ("boolean", "boolean"),
    int: ("number", "integer"),
    float: ("number", "number"),
    Any: ("unknown", "anything"),
}


class _Writer:
    """Writes annotations as TypeScript types and checks, collecting the checks.ts names it uses."""

    def __init__(self, known: set[str], integer: str = "number") -> None:
        self.known = known
        self.integer = integer  # how an int is written (JSON numbers are one type)
        self.used: set[str] = set()

    def _use(self, name: str) -> str:
        self.used.add(name)
        return name

    def type(self, annotation: Any, where: str) -> str:
        text, _ = self._type(_shape(annotation), where)
        return text

    def _type(self, tp: Any, where: str) -> tuple[str, bool]:
        """The TypeScript type and whether it is a union (to parenthesise it in an array)."""
        members = _members(tp)
        if members is not None:
            parts = [self._type(_shape(m), where)[0] for m in members if m is not type(None)]
            return " | ".join(parts + ["null"] * (type(None) in members)), True
        if tp is int:
            return self.integer, False
        if tp in _PRIMITIVES:
            return _PRIMITIVES[tp][0], False
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Literal:
            return " | ".join(json.dumps(_literal(v, where)) for v in args), len(args) > 1
        if origin is list:
            item, union = self._type(_shape(args[0]), where)
            return (f"({item})[]" if union else f"{item}[]"), False
        if origin is tuple:
            return "[" + ", ".join(self._type(_shape(a), where)[0] for a in _tuple_args(args, where)) + "]", False
        if origin is dict:
            _dict_key(args, where)
            return f"Record<string, {self._type(_shape(args[1]), where)[0]}>", False
        return self._named(tp, where), False

    def _named(self, tp: Any, where: str) -> str:
        if _is_typeddict(tp) and tp.__name__ in self.known:
            return str(tp.__name__)
        raise ProtocolSourceError(f"{where}: cannot write {tp!r} in TypeScript (not a protocol type)")

    def check(self, field: Field, where: str) -> str:
        text = self._check(_shape(field.annotation), where)
        return text if field.required else f"{self._use('optional')}({text})"

    def _check(self, tp: Any, where: str) -> str:
        members = _members(tp)
        if members is not None:
            present = [self._check(_shape(m), where) for m in members if m is not type(None)]
            inner = present[0] if len(present) == 1 else f"{self._use('oneOf')}({', '.join(present)})"
            return f"{self._use('nullable')}({inner})" if type(None) in members else inner
        if tp in _PRIMITIVES:
            return self._use(_PRIMITIVES[tp][1])
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Literal:
            return f"{self._use('literal')}({', '.join(json.dumps(_literal(v, where)) for v in args)})"
        if origin is list:
            return f"{self._use('arrayOf')}({self._check(_shape(args[0]), where)})"
        if origin is tuple:
            items = _tuple_args(args, where)
            shape = "[" + ", ".join(self._type(_shape(a), where)[0] for a in items) + "]"
            return f"{self._use('tuple')}<{shape}>({', '.join(self._check(_shape(a), where) for a in items)})"
        if origin is dict:
            _dict_key(args, where)
            return f"{self._use('recordOf')}({self._check(_shape(args[1]), where)})"
        return "check" + self._named(tp, where)


def ts_type(annotation: Any, where: str, known: set[str], integer: str = "number") -> str:
    """`annotation` as a TypeScript type (an int as `integer`); `known` names the TypedDicts it may refer to."""
    return _Writer(known, integer).type(annotation, where)


def _literal(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ProtocolSourceError(f"{where}: only string literals are written in TypeScript, got {value!r}")
    return value


def _tuple_args(args: tuple[Any, ...], where: str) -> tuple[Any, ...]:
    if not args or args[-1] is Ellipsis:
        raise ProtocolSourceError(f"{where}: a tuple must list its items (JSON arrays of a fixed length)")
    return args


def _dict_key(args: tuple[Any, ...], where: str) -> None:
    if len(args) != 2 or args[0] is not str:
        raise ProtocolSourceError(f"{where}: a dict must have str keys (a JSON object)")


def _references(annotation: Any) -> Iterator[str]:
    """The names of the protocol TypedDicts `annotation` refers to."""
    tp = _shape(annotation)
    if _is_typeddict(tp):
        yield tp.__name__
        return
    for arg in _members(tp) or typing.get_args(tp):
        if arg is not Ellipsis and not isinstance(arg, str):
            yield from _references(arg)


# ---- the text ---------------------------------------------------------------------------------------


def _markup(text: str) -> str:
    """A docstring's reST as the Markdown of JSDoc (``code`` → `code`), never closing the comment."""
    return text.replace("``", "`").replace("*/", "*\\/")


def _jsdoc(text: str, indent: str = "") -> list[str]:
    if not text:
        return []
    paragraphs = [" ".join(p.split()) for p in _markup(text).split("\n\n")]
    width = _WIDTH - len(indent) - 3
    if len(paragraphs) == 1 and len(paragraphs[0]) + len(indent) + 7 <= _WIDTH:
        return [f"{indent}/** {paragraphs[0]} */"]
    lines = [f"{indent}/**"]
    for i, paragraph in enumerate(paragraphs):
        if i:
            lines.append(f"{indent} *")
        lines.extend(
            f"{indent} * {line}"
            for line in textwrap.wrap(paragraph, width, break_long_words=False, break_on_hyphens=False)
        )
    return [*lines, f"{indent} */"]


def _fits(line: str) -> bool:
    return len(line) <= _WIDTH


def _union_alias(name: str, members: list[str], doc: str) -> list[str]:
    one = f"export type {name} = {' | '.join(members)};"
    body = (
        [one] if _fits(one) else [f"export type {name} =", *(f"  | {m}" for m in members[:-1]), f"  | {members[-1]};"]
    )
    return [*_jsdoc(doc), *body]


def _string_array(head: str, values: list[str], tail: str) -> list[str]:
    one = f"{head}[{', '.join(json.dumps(v) for v in values)}]{tail}"
    return [one] if _fits(one) else [f"{head}[", *(f"  {json.dumps(v)}," for v in values), f"]{tail}"]


@dataclass(frozen=True)
class Variant:
    """One member of a tagged reply: its name, tag value, fields and doc."""

    name: str
    tag: str
    fields: tuple[Field, ...]
    doc: str


def variants(message: Message, by_name: dict[str, Message]) -> list[Variant]:
    """The members of a tagged reply (`protocol.VARIANTS`): per header, the message with the header's keys.

    Keys only another header has are left out; a header's key the message lacks, or a tag
    that is not one string `Literal`, is a `ProtocolSourceError`.
    """
    key, headers = protocol.VARIANTS[message.name]
    names = {f.name for f in message.fields}
    header_fields = {h.__name__: by_name[h.__name__].fields for h in headers}
    out = []
    for header in headers:
        own = {f.name: f for f in header_fields[header.__name__]}
        if not set(own) <= names:
            raise ProtocolSourceError(
                f"{header.__name__} has keys {sorted(set(own) - names)} that {message.name} lacks"
            )
        tag = typing.get_args(_shape(own[key].annotation)) if key in own else ()
        if len(tag) != 1 or typing.get_origin(_shape(own[key].annotation)) is not typing.Literal:
            raise ProtocolSourceError(f"{header.__name__}.{key} must be one Literal value (it tags {message.name})")
        others = {f.name for h, fs in header_fields.items() if h != header.__name__ for f in fs} - set(own)
        fields = tuple(own.get(f.name, f) for f in message.fields if f.name not in others)
        name = f"{_literal(tag[0], message.name).title()}{message.name}"
        shown = f"`{key}: {json.dumps(tag[0])}`"
        doc = f"A `{message.name}` with {shown} (a `{header.__name__}`). {by_name[header.__name__].doc}"
        out.append(Variant(name, tag[0], fields, doc))
    return out


def _interface(name: str, fields: tuple[Field, ...], bases: tuple[str, ...], doc: str, writer: _Writer) -> list[str]:
    extends = f" extends {', '.join(bases)}" if bases else ""
    lines = [*_jsdoc(doc), f"export interface {name}{extends} {{"]
    for f in fields:
        lines.extend(_jsdoc(f.doc, "  "))
        lines.append(f"  {f.name}{'' if f.required else '?'}: {writer.type(f.annotation, f'{name}.{f.name}')};")
    return [*lines, "}"]


def _record_check(name: str, fields: tuple[Field, ...], writer: _Writer) -> list[str]:
    writer._use("record")
    lines = [f"export const check{name} = record<{name}>({{"]
    for f in fields:
        line = f"  {f.name}: {writer.check(f, f'{name}.{f.name}')},"
        if not _fits(line):
            raise ProtocolSourceError(f"{name}.{f.name}: its check is longer than a line; name a TypedDict for it")
        lines.append(line)
    return [*lines, "});"]


def _check_order(all_messages: list[Message]) -> list[Message]:
    """The messages with every one after those its fields refer to (checks are constants)."""
    by_name = {m.name: m for m in all_messages}
    done: dict[str, Message] = {}

    def visit(message: Message, path: tuple[str, ...]) -> None:
        if message.name in done:
            return
        if message.name in path:
            raise ProtocolSourceError(f"{' → '.join((*path, message.name))}: recursive messages are not supported")
        for f in message.fields:
            for name in _references(f.annotation):
                visit(by_name[name], (*path, message.name))
        done[message.name] = message

    for message in all_messages:
        visit(message, ())
    return list(done.values())


_UNIONS: dict[str, Any] = {"FromFrontEnd": protocol.FromFrontEnd, "ToFrontEnd": protocol.ToFrontEnd}


def _tags(union: Any, where: str) -> list[tuple[str, str]]:
    """``(type tag, TypedDict name)`` of each member of a message union."""
    out = []
    for member in typing.get_args(union):
        tag = typing.get_args(_shape(typing.get_type_hints(member, include_extras=True)["type"]))
        if len(tag) != 1:
            raise ProtocolSourceError(f"{where}: {member.__name__}.type must be one Literal value")
        out.append((tag[0], member.__name__))
    return out


def _layout_value(value: Any) -> str:
    if value is not None and not isinstance(value, str):
        raise ProtocolSourceError(f"layout values are strings or None, got {value!r}")
    return json.dumps(value)


def _object(head: str, items: list[tuple[str, str]], tail: str, indent: str) -> list[str]:
    """An object literal on one line when it fits (biome keeps it so), else one key a line."""
    one = (
        f"{indent}{head}{{ {', '.join(f'{k}: {v}' for k, v in items)} }}{tail}"
        if items
        else f"{indent}{head}{{}}{tail}"
    )
    if _fits(one):
        return [one]
    return [f"{indent}{head}{{", *(f"{indent}  {k}: {v}," for k, v in items), f"{indent}}}{tail}"]


def _strings(values: tuple[str, ...]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def _layout(layout: Layout, doc: str) -> list[str]:
    lines = [
        *_jsdoc(doc, "  "),
        f"  {layout.name}: {{",
        f"    message: {json.dumps(layout.message)},",
        *_object("when: ", [(k, _layout_value(v)) for k, v in layout.when], ",", "    "),
        f"    needs: {_strings(layout.needs)},",
        "    buffers: [",
    ]
    for b in layout.buffers:
        items = [
            ("name", json.dumps(b.name)),
            ("dtype", json.dumps(b.dtype)),
            ("length", _strings(b.length)),
            ("only_with", _layout_value(b.only_with)),
        ]
        lines.extend([*_jsdoc(b.doc, "      "), *_object("", items, ",", "      ")])
    return [*lines, "    ],", "  },"]


def layout_docs() -> dict[str, str]:
    """Each layout's docstring in protocol.py (the string after its assignment), by its name."""
    tree = ast.parse(inspect.getsource(protocol))
    out = {}
    for statement, after in zip(tree.body, tree.body[1:], strict=False):
        value = getattr(statement, "value", None)
        if (
            isinstance(statement, ast.Assign)
            and isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "Layout"
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
        ):
            out[ast.literal_eval(value.args[0])] = str(after.value.value)
    return out


def _types(all_messages: list[Message], by_name: dict[str, Message], writer: _Writer) -> list[str]:
    """The interfaces of every TypedDict (tagged replies as unions of their variants), the unions and their tags."""
    body = ["// ---- the messages' types (protocol.py's TypedDicts) " + "-" * 64]
    for message in all_messages:
        body.append("")
        if message.name in protocol.VARIANTS:
            members = variants(message, by_name)
            for variant in members:
                body.extend([*_interface(variant.name, variant.fields, (), variant.doc, writer), ""])
            body.extend(_union_alias(message.name, [v.name for v in members], message.doc))
        else:
            body.extend(_interface(message.name, message.own, message.bases, message.doc, writer))
    docs = {"FromFrontEnd": "Every message the front end sends.", "ToFrontEnd": "Every message the kernel sends."}
    for name, union in _UNIONS.items():
        body.extend(["", *_union_alias(name, [m for _, m in _tags(union, name)], docs[name])])
    for name, constant in (("FromFrontEnd", "REQUEST_TYPES"), ("ToFrontEnd", "REPLY_TYPES")):
        head = f'export const {constant}: readonly {name}["type"][] = '
        body.extend(
            ["", f"/** The `type` tags of `{name}`. */", *_string_array(head, list(getattr(protocol, constant)), ";")]
        )
    return body


def _checks(all_messages: list[Message], by_name: dict[str, Message], writer: _Writer) -> list[str]:
    """A check of every TypedDict (after those it uses), and the checks of each union by message type."""
    body = ["", "// ---- their checks " + "-" * 98]
    for message in _check_order(all_messages):
        body.append("")
        if message.name in protocol.VARIANTS:
            key = protocol.VARIANTS[message.name][0]
            members = variants(message, by_name)
            for variant in members:
                body.extend([*_record_check(variant.name, variant.fields, writer), ""])
            writer._use("tagged")
            body.append(f"export const check{message.name} = tagged<{message.name}>({json.dumps(key)}, {{")
            body.extend([*(f"  {v.tag}: check{v.name}," for v in members), "});"])
        else:
            body.extend(_record_check(message.name, message.fields, writer))
    for name, constant in (("FromFrontEnd", "REQUEST_CHECKS"), ("ToFrontEnd", "REPLY_CHECKS")):
        writer._use("Check")
        body.extend(["", f"/** The check of each `{name}` message, by its type. */"])
        body.append(f'export const {constant}: {{ [T in {name}["type"]]: Check<Extract<{name}, {{ type: T }}>> }} = {{')
        body.extend([*(f"  {tag}: check{member}," for tag, member in _tags(_UNIONS[name], name)), "};"])
    return body


def _layouts() -> list[str]:
    """`protocol.LAYOUTS` as the constant the front end decodes by."""
    body = ["", "// ---- the binary buffers (protocol.LAYOUTS) " + "-" * 73, ""]
    body.append(
        "/** Each message's buffers, in order: element type and count (the product of its header's `length` keys). */"
    )
    body.append("export const LAYOUTS = {")
    docs = layout_docs()
    for layout in protocol.LAYOUTS:
        body.extend(_layout(layout, docs.get(layout.name, "")))
    return [*body, "} as const satisfies Record<string, Layout>;"]


def _head(used: set[str]) -> list[str]:
    named = [f"type {n}" if n == "Check" else n for n in sorted(used, key=str.lower)]
    checks = f'import {{ {", ".join(named)} }} from "./checks";'
    return [
        f"// Generated from ipu_nb/_widget/protocol.py by `{COMMAND}`: do not edit.",
        "// The types, checks and buffer layouts of every widget message (docs/widget-protocol.md).",
        "",
        'import type { Layout } from "./buffers";',
        *([checks] if _fits(checks) else ["import {", *(f"  {n}," for n in named), '} from "./checks";']),
        "",
    ]


def typescript() -> str:
    """The text of js/kernel/generated.ts."""
    all_messages = messages()
    by_name = {m.name: m for m in all_messages}
    writer = _Writer(set(by_name))
    body = [*_types(all_messages, by_name, writer), *_checks(all_messages, by_name, writer), *_layouts()]
    return "\n".join([*_head(writer.used), *body]) + "\n"
