# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main_while_loop(i: R.Tensor((), dtype="int32"), s: R.Tensor((2, 3), dtype="float32"), x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        cond: R.Tensor((), dtype="bool") = R.call_pure_packed("test.vm.less", i, R.const(10, "int32"), ty_args=(R.Tensor((), dtype="bool"),))
        c: R.Tensor((), dtype="int32") = R.const(1, "int32")
        if cond:
            new_i: R.Tensor((), dtype="int32") = R.add(i, c)
            new_s: R.Tensor((2, 3), dtype="float32") = R.add(s, x)
            r_then: R.Tensor((2, 3), dtype="float32") = cls.main_while_loop(new_i, new_s, x)
            r: R.Tensor((2, 3), dtype="float32") = r_then
        else:
            r: R.Tensor((2, 3), dtype="float32") = s
        return r

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        while_loop: R.Any = R.make_closure(cls.main_while_loop, (x,))
        gv: R.Tensor((2, 3), dtype="float32") = R.invoke_pure_closure(while_loop, (R.const(0, "int32"), x), ty_args=(R.Tensor((2, 3), dtype="float32"),))
        return gv