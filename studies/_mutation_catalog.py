"""What ``mutation_study.py`` mutates and which tests it runs for a mutant: the kept
cosmic-ray operators and their families, the message-only code that is skipped, the code
objects of a module (:class:`ModuleIndex`) and the choice of tests per mutant
(:class:`Selector`)."""

from __future__ import annotations

import ast
import collections
from pathlib import Path

# Run after every other selected test (see ``Selector._ordered``).
LAST_FILES = ("tests/privtools/noise/test_mutation_kills.py",)

# ------------------------------------------------------------------------ operator set
# (from, to) pairs of cosmic-ray's binary-operator replacement that are kept.
BINARY_SWAPS = (
    ("Add", "Sub"), ("Sub", "Add"),          # sign and offset: t + 1, n·g + 2τ + 1, y − m
    ("Mul", "Div"), ("Div", "Mul"),          # a scale inverted: g/ε, σ²/n, 1/b
    ("Mul", "Add"),                          # a scale turned into a shift: n·g, 2τ
    ("Div", "FloorDiv"), ("FloorDiv", "Div"),  # exact vs floor division
    ("Mod", "FloorDiv"), ("FloorDiv", "Mod"),  # the wrap mod m vs the quotient
    ("Pow", "Mul"),                          # powers: 2**62 limits, squares
    ("LShift", "RShift"), ("RShift", "LShift"),  # powers of two: 2**64 words, bit budgets
)
COMPARISON_SWAPS = (
    ("Lt", "LtE"), ("LtE", "Lt"), ("Gt", "GtE"), ("GtE", "Gt"),  # boundary off by one
    ("Lt", "GtE"), ("LtE", "Gt"), ("Gt", "LtE"), ("GtE", "Lt"),  # comparison negated
    ("Eq", "NotEq"), ("NotEq", "Eq"),
)
UNARY = ("USub_UAdd", "Delete_Not", "Delete_Invert")  # −x → +x, not x → x, ~mask → mask
BOOLEAN = ("ReplaceAndWithOr", "ReplaceOrWithAnd", "ReplaceTrueWithFalse",
           "ReplaceFalseWithTrue", "AddNot")

OPERATORS: dict[str, str] = {"core/NumberReplacer": "number"}
OPERATORS.update({f"core/ReplaceBinaryOperator_{a}_{b}": "arithmetic" for a, b in BINARY_SWAPS})
OPERATORS.update({f"core/ReplaceComparisonOperator_{a}_{b}": "comparison"
                  for a, b in COMPARISON_SWAPS})
OPERATORS.update({f"core/ReplaceUnaryOperator_{u}": "unary" for u in UNARY})
OPERATORS.update({f"core/{b}": "boolean" for b in BOOLEAN})

FAMILIES = {
    "number": "numeric constant c → c + 1 and c − 1 (off-by-one in a sensitivity, modulus, "
              "precision, scale or limit)",
    "arithmetic": "+ ↔ −; × → ÷, ÷ → ×, × → +; ÷ ↔ //; % ↔ //; ** → ×; << ↔ >> "
                  "(signs, inverted scales, rounding, the wrap mod m, powers)",
    "comparison": "< ↔ <=, > ↔ >= (boundary off by one); < → >=, <= → >, > → <=, >= → < "
                  "(negated); == ↔ !=",
    "unary": "−x → +x; `not` and `~` deleted",
    "boolean": "and ↔ or; True ↔ False; `not` added to if/while/assert/ternary conditions",
}
EXCLUDED_OPERATORS = (
    ("other binary pairs (e.g. + → **, × → %, any → & | ^)",
     "mostly type errors or overflows that any test hits; they add volume, not test gaps"),
    ("bitwise & | ^ as sources", "masks and type unions (`int | None`), not arithmetic"),
    ("is / is not", "identity tests against None; not numeric"),
    ("ReplaceUnaryOperator_Delete_USub", "the same program as −x → +x"),
    ("other unary replacements (−x → ~x, not → −, …)", "type errors, not plausible slips"),
    ("ExceptionReplacer", "changes only which exception class is caught"),
    ("RemoveDecorator", "removes @dataclass/@property: every use crashes"),
    ("ZeroIterationForLoop, break ↔ continue", "control flow, not constants or operators"),
    ("VariableReplacer, VariableInserter", "random identifiers; need parameters"),
)
# Functions whose code only formats text (representations and error messages).
MESSAGE_FUNCTIONS = frozenset({
    "__str__", "__repr__", "describe", "_beta_str", "_too_wide", "_too_long", "_missing",
    "_idx",
})
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp,
                   ast.SetComp, ast.DictComp, ast.GeneratorExp)
_CODE_NAMES = {ast.Lambda: "<lambda>", ast.ListComp: "<listcomp>", ast.SetComp: "<setcomp>",
               ast.DictComp: "<dictcomp>", ast.GeneratorExp: "<genexpr>"}


# ------------------------------------------------------------------ static structure
def _char_to_byte(line: str, col: int) -> int:
    return len(line[:col].encode("utf-8"))


class ModuleIndex:
    """Function-like scopes of one module, to map a mutant's position to a code object."""

    def __init__(self, source: str):
        self.lines = source.splitlines()
        self.tree = ast.parse(source)
        self.scopes = []  # (start, end, key, depth, name)
        self._walk(self.tree, 0, None)
        self.imports = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                names = [a.name for a in node.names]
                self.imports.add((node.level, mod, tuple(names)))

    def _walk(self, node, depth, func_name):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCTION_NODES):
                first = child.lineno
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    name = child.name
                else:
                    name = _CODE_NAMES[type(child)]
                self.scopes.append(((child.lineno, child.col_offset),
                                    (child.end_lineno, child.end_col_offset),
                                    (first, name), depth + 1, name))
                self._walk(child, depth + 1, name)
            else:
                self._walk(child, depth, func_name)

    def scope_chain(self, pos: tuple[int, int]) -> list:
        """Scopes containing ``pos`` (line, character column), innermost first."""
        line, col = pos
        bpos = (line, _char_to_byte(self.lines[line - 1], col))
        inside = [s for s in self.scopes if s[0] <= bpos < s[1]]
        return sorted(inside, key=lambda s: -s[3])


def _message_only(tree, pos: tuple[int, int]) -> bool:
    """True when the parso leaf at ``pos`` lies in an f-string, a raise statement's
    expression or a message/representation function."""
    node = tree.get_leaf_for_position(pos, include_prefixes=True)
    while node is not None:
        if node.type in ("fstring", "raise_stmt"):
            return True
        if node.type == "funcdef" and node.name.value in MESSAGE_FUNCTIONS:
            return True
        node = node.parent
    return False


# ------------------------------------------------------------------------ selection
class Selector:
    """Per-mutant test selection from the trace."""

    def __init__(self, trace: dict, tests_order: list[str], modules: list[str], root: Path):
        self.tests = tests_order
        self.index_of = {t: i for i, t in enumerate(tests_order)}
        self.duration = [trace["durations"].get(t, 0.0) for t in tests_order]
        self.by_key: dict[tuple, set[str]] = collections.defaultdict(set)
        self.by_file: dict[str, set[str]] = collections.defaultdict(set)
        for ctx, codes in trace["hits"].items():
            for rel, line, name in codes:
                self.by_key[(rel, line, name)].add(ctx)
                self.by_file[rel].add(ctx)
        self.test_file = collections.defaultdict(list)
        for t in tests_order:
            self.test_file[t.split("::")[0]].append(t)
        self.modules = modules
        self.index = {m: ModuleIndex((root / m).read_text(encoding="utf-8")) for m in modules}
        self.importers = {m: self._importers(m) for m in modules}

    def _importers(self, rel: str) -> set[str]:
        """Modules of the study that import ``rel`` (``from .x import``/``from . import x``
        or by dotted name)."""
        dotted = rel.removesuffix(".py").replace("/", ".")
        pkg, _, stem = dotted.rpartition(".")
        out = {rel}
        for other, idx in self.index.items():
            other_pkg = other.removesuffix(".py").replace("/", ".").rpartition(".")[0]
            for level, mod, names in idx.imports:
                if level == 0:
                    hit = mod == dotted or (mod == pkg and stem in names)
                else:
                    base = other_pkg.rsplit(".", level - 1)[0] if level > 1 else other_pkg
                    full = f"{base}.{mod}" if mod else base
                    hit = full == dotted or (full == pkg and stem in names)
                if hit:
                    out.add(other)
        return out

    def _expand(self, contexts: set[str]) -> set[str]:
        tests = set()
        for ctx in contexts:
            if ctx.startswith("<collect>"):
                tests.update(self.test_file.get(ctx[len("<collect>"):], ()))
            elif not ctx.startswith("<"):
                tests.add(ctx)
        return tests

    def _ordered(self, tests: set[str]) -> list[int]:
        """Fastest first; the tests of :data:`LAST_FILES` after all others, so that a mutant
        they kill first is one that no other selected test kills."""
        idx = [self.index_of[t] for t in tests if t in self.index_of]
        return sorted(idx, key=lambda i: (self.tests[i].split("::")[0] in LAST_FILES,
                                          self.duration[i], i))

    def users(self, rel: str) -> set[str]:
        tests = set()
        for mod in self.importers[rel]:
            tests |= self._expand(self.by_file.get(mod, set()))
        return tests

    def select(self, rel: str, pos: tuple[int, int]) -> tuple[list[int], list[int], str]:
        """(pass-1 tests, pass-2 tests, enclosing scope) for a mutant at ``pos``."""
        chain = self.index[rel].scope_chain(pos)
        users = self.users(rel)
        if not chain:
            return self._ordered(users), self._ordered(users), "<module>"
        first, name = chain[0][2]
        contexts = self.by_key.get((rel, first, name), set())
        tests = self._expand(contexts)
        if contexts & {"<startup>", "<session>"}:
            tests |= users
        return self._ordered(tests), self._ordered(users), name
