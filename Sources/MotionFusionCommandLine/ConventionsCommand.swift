import MotionFusion

/// `motionfusion conventions`: the conventions summary, with a live check of each statement.
enum ConventionsCommand {
    static let command = Command<Void>(
        name: "conventions", summary: "Print the frame, axis, unit and angle conventions", arguments: [], options: [],
        initial: (), finish: { _, positionals in try expectArguments(positionals, []) },
        run: { _, output in
            let east = Quaternion(axis: .unitZ, angle: -.pi / 2)
            output.out(
                """
                Quaternion:  scalar first (w, x, y, z), Hamilton product, unit norm.
                Attitude:    earth from sensor, v_earth = q ⊗ v_sensor ⊗ q*.
                Earth frame: ENU by default (x east, y north, z up); also NED and NWU.
                Euler:       Z-Y-X: R = Rz(yaw) Ry(pitch) Rx(roll); pitch in [-90°, 90°].
                Heading:     degrees clockwise from north in [0, 360); = -yaw in ENU.
                             Phone flat, top edge north: heading \(Quaternion.identity.headingDegrees()).
                             Phone flat, top edge east:  heading \(east.headingDegrees().rounded()).
                Units:       s, rad/s, m/s², µT inside; degrees only in text output.
                Time:        the recording's own clock in seconds (never re-zeroed).
                See docs/Conventions.md.

                """)
        })
}
