package narwhal.core.profile;

import narwhal.core.fleet.EngineState;

/**
 * The predicted seconds of prefill work already resident on an engine: Σ over its resident
 * prefills of {@link PrefillModel#seconds}, computed exactly from the count, Σ L and Σ L² the
 * engine keeps, so pricing never walks a list of requests. Admission and placement add the new
 * request's own prefill to it; the role controller divides it by {@code slo.ttft_s} for the prefill
 * load.
 */
public final class PrefillBacklog {

  private PrefillBacklog() {}

  public static double seconds(EngineState engine, PrefillModel model) {
    int n = engine.residentPrefill();
    if (n <= 0) {
      return 0;
    }
    return n * model.baseS()
        + model.perTokenS() * engine.residentPrefillTokens()
        + model.perTokenSquaredS() * engine.residentPrefillTokenSquares();
  }
}
