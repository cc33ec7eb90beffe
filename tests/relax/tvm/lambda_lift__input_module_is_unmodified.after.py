# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main_inner_func(x1: R.Tensor((2, 3), dtype="float32"), c1: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        s: R.Tensor((2, 3), dtype="float32") = R.add(x1, c1)
        return s

    @R.function(private=True)
    def main_outer_func(c1: R.Tensor((2, 3), dtype="float32")) -> R.Any:
        cls = Module
        inner_func: R.Any = R.make_closure(cls.main_inner_func, (c1,))
        return inner_func

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        in_call: R.Any = cls.main_outer_func(x)
        res: R.Tensor((2, 3), dtype="float32") = R.invoke_pure_closure(in_call, (y,), ty_args=(R.Tensor((2, 3), dtype="float32"),))
        return res