import sys as __ebsys__
__ebh__ = __ebsys__.modules.get('_execbench_filter_VERSION')
if __ebh__ is None:
    __ebh__ = type(__ebsys__)('_execbench_filter_VERSION')
    exec(compile(HARNESS_SOURCE, '<filter harness>', 'exec'), __ebh__.__dict__)
    __ebsys__.modules['_execbench_filter_VERSION'] = __ebh__
__ebop__, __ebiop__, __ebcall__, __ebrun__ = __ebh__.operation, __ebh__.inplace_operation, __ebh__.builtin_call, __ebh__.run
del __ebsys__, __ebh__
