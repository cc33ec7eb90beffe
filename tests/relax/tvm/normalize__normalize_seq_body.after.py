# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main(x: R.Tensor((), dtype="int32"), y: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
        gv: R.Tensor((), dtype="int32") = R.add(x, y)
        return gv
