@_exported import MotionFusionIO
