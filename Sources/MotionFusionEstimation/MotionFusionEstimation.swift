@_exported import MotionFusionMath
