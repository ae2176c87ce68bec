@_exported import MotionFusionCore
@_exported import MotionFusionLinearAlgebra
@_exported import MotionFusionMath
