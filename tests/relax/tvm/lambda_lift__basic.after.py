# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main_inner(x2: R.Tensor((10, 5), dtype="float32"), y2: R.Tensor((10, 5), dtype="float32")) -> R.Tensor((10, 5), dtype="float32"):
        s: R.Tensor((10, 5), dtype="float32") = R.add(x2, y2)
        return s

    @R.function
    def main(x1: R.Tensor((10, 5), dtype="float32"), y1: R.Tensor((10, 5), dtype="float32")) -> R.Tensor((10, 5), dtype="float32"):
        cls = Module
        gv1: R.Tensor((10, 5), dtype="float32") = cls.main_inner(x1, y1)
        return gv1