/// Standard gravity, m/s² (the conventional value, 9.80665). The one gravity constant of the
/// package: filters compare specific force against it, `gravity` and `userAcceleration` are split
/// with it, and accelerometers in g are converted with it. Local gravity differs by at most 0.3 %.
public let standardGravity = 9.80665
