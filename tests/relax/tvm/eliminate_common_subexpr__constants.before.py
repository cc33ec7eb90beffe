# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def foo() -> R.Tuple(R.Tensor((), dtype="int32"), R.Tensor((2, 2), dtype="int32")):
        with R.dataflow():
            lv0: R.Tensor((), dtype="int32") = R.add(R.const(1, "int32"), R.const(1, "int32"))
            lv1: R.Tensor((2, 2), dtype="int32") = R.add(metadata["ir.GenericConst"][0], metadata["ir.GenericConst"][1])
            gv: R.Tuple(R.Tensor((), dtype="int32"), R.Tensor((2, 2), dtype="int32")) = lv0, lv1
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.