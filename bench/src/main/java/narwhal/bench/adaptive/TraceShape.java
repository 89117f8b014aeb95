package narwhal.bench.adaptive;

import java.util.List;

/**
 * The two traces of the adaptive benchmark. Stationary: one mix for the whole run, where a good
 * static split is already right and the controller must do no harm. Phase-shifting: prompt-heavy,
 * then output-heavy, then prompt-heavy again with a burst, so the right split moves twice.
 */
enum TraceShape {
  STATIONARY,
  PHASE_SHIFTING;

  /** The phases, each {@code phaseSeconds} long (the burst a fifth of that). */
  List<TracePhase> phases(double phaseSeconds, int longPrompt, int shortPrompt, int longOutput, int shortOutput) {
    if (this == STATIONARY) {
      int prompt = (longPrompt + shortPrompt) / 2;
      int output = (longOutput + shortOutput) / 2;
      return List.of(new TracePhase("steady", 3 * phaseSeconds, 1.0, prompt, output));
    }
    return List.of(
        new TracePhase("prompt-heavy", phaseSeconds, 1.0, longPrompt, shortOutput),
        new TracePhase("output-heavy", phaseSeconds, 1.0, shortPrompt, longOutput),
        new TracePhase("prompt-heavy", 0.8 * phaseSeconds, 1.0, longPrompt, shortOutput),
        new TracePhase("burst", 0.2 * phaseSeconds, 2.0, longPrompt, shortOutput));
  }

  String label() {
    return this == STATIONARY ? "stationary" : "phase-shifting";
  }
}
