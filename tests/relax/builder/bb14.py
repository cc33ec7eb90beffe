# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def func() -> R.Tensor((), dtype="int64"):
        with R.dataflow():
            d: R.Tensor((), dtype="int64") = R.const(3, "int64")
            R.output()
        a: R.Tensor((), dtype="int64") = R.const(1, "int64")
        b: R.Tensor((), dtype="int64") = R.const(2, "int64")
        c: R.Tensor((), dtype="int64") = R.add(a, b)
        with R.dataflow():
            e: R.Tensor((), dtype="int64") = c
            f: R.Tensor((), dtype="int64") = R.add(d, e)
            R.output(f)
        return f
