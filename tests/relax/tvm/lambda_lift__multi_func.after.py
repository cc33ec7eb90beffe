# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def glob_func_1(x1: R.Tensor((10, 5), dtype="float32"), y1: R.Tensor((10, 5), dtype="float32")) -> R.Tensor((10, 5), dtype="float32"):
        cls = Module
        gv1: R.Tensor((10, 5), dtype="float32") = cls.glob_func_1_inner(x1, y1)
        return gv1

    @R.function(private=True)
    def glob_func_1_inner(x2: R.Tensor((10, 5), dtype="float32"), y2: R.Tensor((10, 5), dtype="float32")) -> R.Tensor((10, 5), dtype="float32"):
        s: R.Tensor((10, 5), dtype="float32") = R.add(x2, y2)
        return s

    @R.function
    def glob_func_2(x1: R.Tensor((10, 5), dtype="float32"), y1: R.Tensor((10, 5), dtype="float32")) -> R.Tensor((10, 5), dtype="float32"):
        cls = Module
        gv1: R.Tensor((10, 5), dtype="float32") = cls.glob_func_2_inner(x1, y1)
        return gv1

    @R.function(private=True)
    def glob_func_2_inner(x2: R.Tensor((10, 5), dtype="float32"), y2: R.Tensor((10, 5), dtype="float32")) -> R.Tensor((10, 5), dtype="float32"):
        s: R.Tensor((10, 5), dtype="float32") = R.add(x2, y2)
        return s