package narwhal.core.health;

import java.util.concurrent.CompletableFuture;
import narwhal.core.checks.CheckResult;
import narwhal.core.fleet.EngineState;
import org.jspecify.annotations.Nullable;

/** The breaker's bookkeeping for one engine, confined to the health monitor's loop. */
final class TrackedEngine {
  final EngineState engine;
  /** Why it is out of placement, which decides how it may come back; null while in placement. */
  @Nullable OutCause cause;
  /** After a crossed-decode failure, the producer its inference probe must go through. */
  @Nullable String producerIid;
  long outSinceTick;
  int livenessMisses;
  /** The one probe in flight for this engine, if any: probes never overlap. */
  @Nullable CompletableFuture<CheckResult> probe;

  TrackedEngine(EngineState engine) {
    this.engine = engine;
  }

  String iid() {
    return engine.iid();
  }

  void cancelProbe() {
    if (probe != null) {
      probe.cancel(false);
      probe = null;
    }
  }
}
