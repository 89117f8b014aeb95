package narwhal.config;

/**
 * The {@code controller.thresholds} section: when the controller moves an engine between roles.
 *
 * @param expand a sustained pool load at or above this grows the pool
 * @param shrink a pool load at or below this lets the pool give an engine up
 * @param cooldownS the pause after a P→D move before another one
 * @param sustainedIntervals monitor intervals a load must hold to count as sustained
 * @param dwellS the least time an engine stays in a role after a move
 * @param panicRatio the load ratio that bypasses the P→D cooldown; 0 turns the bypass off
 * @param flipResidentGuard resident decodes a D→P donor may still hold; 0 turns the guard off
 */
public record ThresholdsConfig(
    double expand,
    double shrink,
    double cooldownS,
    int sustainedIntervals,
    double dwellS,
    double panicRatio,
    int flipResidentGuard) {

  public static ThresholdsConfig defaults() {
    return new ThresholdsConfig(1.0, 0.5, 10.0, 3, 0.0, 0.0, 0);
  }
}
