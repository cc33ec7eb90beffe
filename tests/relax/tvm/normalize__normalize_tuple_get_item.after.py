# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main(x: R.Tensor((), dtype="int32")) -> R.Tensor((), dtype="int32"):
        gv: R.Tuple(R.Tensor((), dtype="int32")) = ((x,),)[0]
        gv1: R.Tensor((), dtype="int32") = gv[0]
        return gv1
