# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(A0: R.Tensor, B0: R.Tensor) -> R.Tuple(R.Tensor, R.Tensor):
        with R.dataflow():
            B1: R.Tensor = R.add(B0, B0)
            B2: R.Tensor = R.add(B1, B1)
            B3: R.Tensor = R.add(B2, B2)
            R.output(B3)
        R.print(format=R.str("impure_function"))
        with R.dataflow():
            A1: R.Tensor = R.add(A0, A0)
            R.output(A1)
        return (A1, B3)