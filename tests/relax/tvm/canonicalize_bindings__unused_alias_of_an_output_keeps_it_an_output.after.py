# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            a: R.Tensor((4,), dtype="float32") = R.add(x, x)
            b: R.Tensor((4,), dtype="float32") = R.multiply(a, a)
            R.output(a, b)
        return b
