/// The MotionFusion library version.
public let motionFusionVersion = "0.2.0"
