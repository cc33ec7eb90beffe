# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(param_tuple: R.Tuple(R.Tensor, R.Tensor, R.Tensor)) -> R.Tuple(R.Tensor, R.Tensor):
        with R.dataflow():
            A: R.Tensor = param_tuple[0]
            B: R.Tensor = param_tuple[1]
            output: R.Tuple(R.Tensor, R.Tensor) = A, B
            R.output(output)
        return output
