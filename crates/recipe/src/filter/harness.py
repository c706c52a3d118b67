# execbench's instrumented run of one benchmark candidate. Loaded once per engine as the module
# `_execbench_filter_<version>` (the prelude, `prelude.py`, caches it in sys.modules: compiling this
# for every candidate cost more than the candidate's run) and bound into each run's globals. The rewrite (instrument.rs) turns each binary operator into a call of
# __ebop__, each augmented assignment into __ebiop__ and each pow()/divmod() call into __ebcall__,
# all naming a site (an index into the Rust-side table of operator spans). The first broken rule
# is recorded and raised as a BaseException the candidate cannot mistake for its own error.
import operator as __ebm__
import sys as __ebsys__


def __ebsetup__():
    m = __ebm__
    binary = {'+': m.add, '-': m.sub, '*': m.mul, '@': m.matmul, '/': m.truediv, '//': m.floordiv,
              '%': m.mod, '**': m.pow, '<<': m.lshift, '>>': m.rshift, '&': m.and_, '|': m.or_, '^': m.xor}
    inplace = {'+=': m.iadd, '-=': m.isub, '*=': m.imul, '@=': m.imatmul, '/=': m.itruediv,
               '//=': m.ifloordiv, '%=': m.imod, '**=': m.ipow, '<<=': m.ilshift, '>>=': m.irshift,
               '&=': m.iand, '|=': m.ior, '^=': m.ixor}
    numbers = (int, bool, float, complex)
    inexact = (float, complex)
    sized = (str, list)
    state = {'broken': None, 'steps': 0, 'step_limit': 100000}

    class Broken(BaseException):
        pass

    def short(value):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + '...'

    def breaks(site, rule, detail):
        if state['broken'] is None:
            state['broken'] = [site, rule, detail]
        raise Broken(rule)

    def check(site, op, a, b):
        ta, tb = type(a), type(b)
        if ta in numbers and tb in numbers:
            if ta in inexact or tb in inexact:
                breaks(site, 'float', '%s %s %s: a %s operand' % (short(a), op, short(b), (ta if ta in inexact else tb).__name__))
            if op == '/':
                breaks(site, 'true_division', '%s / %s' % (short(a), short(b)))
            if op == '**' and abs(a) > 1 and abs(b) > 1:
                breaks(site, 'power', '%s ** %s' % (short(a), short(b)))
            if abs(a) > 3 and abs(b) > 3:
                breaks(site, 'large_integers', '%s %s %s: both operands above 3' % (short(a), op, short(b)))
        elif ta in sized and tb in sized:
            if len(a) > 3 and len(b) > 3:
                breaks(site, 'long_sequences', '%s %s %s: lengths %d and %d' % (short(a), op, short(b), len(a), len(b)))

    # The rewrite names an operator by its index here (no quotes: it may sit inside an f-string).
    symbols = ('+', '-', '*', '@', '/', '//', '%', '**', '<<', '>>', '&', '|', '^')

    def op(site, k, a, b):
        symbol = symbols[k]
        check(site, symbol, a, b)
        return binary[symbol](a, b)

    def iop(site, k, a, b):
        symbol = symbols[k]
        check(site, symbol, a, b)
        return inplace[symbol + '='](a, b)

    def call(site, k, function):
        # pow(a, b[, m]) is checked as a ** b, divmod(a, b) as a // b.
        symbol = symbols[k]

        def checked(*args, **kwargs):
            if len(args) >= 2:
                check(site, symbol, args[0], args[1])
            return function(*args, **kwargs)
        return checked

    # Steps are the lines of the candidate's own code run. RustPython sends every event to the
    # global trace function (it does not switch to the returned local one), so one function
    # counts them all.
    def tracer(frame, event, arg):
        if frame.f_code.co_filename != '<program>':
            return None
        if event == 'line':
            state['steps'] += 1
            if state['steps'] > state['step_limit']:
                breaks(-1, 'step_limit', 'more than %d lines executed' % state['step_limit'])
        return tracer

    def once(call_f):
        state['steps'] = 0
        __ebsys__.settrace(tracer)
        try:
            return call_f()
        finally:
            __ebsys__.settrace(None)

    # RustPython has no cycle collector: whatever makes reference cycles on every run (a class
    # made per run, `json.dumps` of a dict and `ast.literal_eval`, whose helpers are closures)
    # is never freed, and a worker filtering thousands of candidates ran out of memory. So the
    # report is written by hand (json.dumps of strings only) and the literal check walks the tree.
    import ast
    import json

    class Report:
        # The run's value: its repr is the report, as JSON.
        def __init__(self, text):
            self.text = text

        def __repr__(self):
            return self.text

    def report(output=None, steps=0, broken=None, raised=None):
        if broken is not None:
            site, rule, detail = broken
            return Report('{"broken": [%d, %s, %s]}' % (site, json.dumps(rule), json.dumps(detail)))
        if raised is not None:
            kind, message, line = raised
            return Report('{"raised": [%s, %s, %s]}' % (json.dumps(kind), json.dumps(message), 'null' if line is None else '%d' % line))
        return Report('{"output": %s, "steps": %d}' % (json.dumps(output), steps))

    literal_nodes = (ast.Expression, ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Load,
                     ast.UnaryOp, ast.UAdd, ast.USub, ast.BinOp, ast.Add, ast.Sub)

    def reads_back(text, value):
        # What ast.literal_eval accepts (and `set()`, the empty set's repr), evaluated without
        # builtins; the value must come back equal and of the same type.
        try:
            tree = compile(text, '<output>', 'eval', ast.PyCF_ONLY_AST)
        except Exception:
            return False
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                if not (isinstance(node.func, ast.Name) and node.func.id == 'set' and not node.args and not node.keywords):
                    return False
            elif isinstance(node, ast.Name):
                if node.id != 'set':
                    return False
            elif not isinstance(node, literal_nodes):
                return False
        try:
            back = eval(compile(tree, '<output>', 'eval'), {'__builtins__': {'set': set}}, {})
        except Exception:
            return False
        return type(back) is type(value) and back == value

    def run(first, second):
        # Two calls on fresh copies of the input: the output must not depend on anything else. A
        # broken rule is read from `state` as well as caught: the candidate may swallow the
        # exception (a bare except), and RustPython drops an exception raised by a trace function.
        state['broken'] = None
        try:
            value = once(first)
        except Broken:
            return report(broken=state['broken'])
        except Exception as e:
            if state['broken'] is not None:
                return report(broken=state['broken'])
            return report(raised=[type(e).__name__, str(e)[:200], __ebline__(e)])
        if state['broken'] is not None:
            return report(broken=state['broken'])
        steps = state['steps']
        text = repr(value)
        if not reads_back(text, value):
            return report(broken=[-1, 'output_not_literal', '%s does not read back as a literal' % short(text)])
        try:
            again = once(second)
        except Broken:
            return report(broken=state['broken'])
        except Exception as e:
            return report(broken=[-1, 'nondeterministic', 'the second run raised %s' % type(e).__name__])
        if state['broken'] is not None:
            return report(broken=state['broken'])
        if repr(again) != text:
            return report(broken=[-1, 'nondeterministic', 'first run %s, second run %s' % (short(value), short(again))])
        return report(output=text, steps=steps)

    return op, iop, call, run


def __ebline__(error):
    # The line of the candidate's code where an uncaught exception started, when it was there.
    tb = error.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == '<program>':
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


operation, inplace_operation, builtin_call, run = __ebsetup__()
