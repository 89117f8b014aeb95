package narwhal.core.control;

import narwhal.config.EngineRole;

/** Which way a load-driven move takes an engine. */
enum Direction {
  /** A prefill engine joins the decode pool (Alg. 2's expansion of decode). */
  PREFILL_TO_DECODE(EngineRole.PREFILL, EngineRole.DECODE),
  /** A decode engine joins the prefill pool. */
  DECODE_TO_PREFILL(EngineRole.DECODE, EngineRole.PREFILL);

  private final EngineRole from;
  private final EngineRole to;

  Direction(EngineRole from, EngineRole to) {
    this.from = from;
    this.to = to;
  }

  EngineRole from() {
    return from;
  }

  EngineRole to() {
    return to;
  }
}
