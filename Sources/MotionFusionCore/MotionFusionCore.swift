// The core without LAPACK, as one module: the estimation, input/output and products modules.
@_exported import MotionFusionEstimation
@_exported import MotionFusionIO
@_exported import MotionFusionMath
@_exported import MotionFusionProducts
