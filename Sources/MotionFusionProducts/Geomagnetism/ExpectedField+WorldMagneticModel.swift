// With the World Magnetic Model, so that the estimation module does not depend on it.

extension ExpectedField {
    /// The expected field of a World Magnetic Model evaluation.
    public init(_ field: WorldMagneticModel.Field) {
        self.init(strength: field.totalIntensity / 1000, dip: field.inclination.radians)
    }
}
