@_exported import MotionFusionLinearAlgebra
@_exported import MotionFusionMath

/// The MotionFusion library version.
public let motionFusionVersion = "0.1.0"
