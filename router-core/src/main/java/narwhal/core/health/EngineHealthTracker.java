package narwhal.core.health;

import narwhal.core.legs.EngineFailure;
import org.jspecify.annotations.Nullable;

/**
 * What requests tell the breaker about the engines they used, and what the breaker tells
 * admission. Callable from any thread: implementations hop onto their own loop.
 */
public interface EngineHealthTracker {

  /** A prefill leg on {@code iid} returned a usable handoff. */
  void prefillSucceeded(String iid);

  /** A decode stream on {@code iid} reached {@code [DONE]}. */
  void decodeSucceeded(String iid);

  /**
   * A leg failed. The failure names the engine to blame (the leg that failed, not its partner);
   * {@code producerIid} is the request's producer when a decode leg failed, so the engine's
   * inference probe can use a new handoff from that same producer.
   */
  void legFailed(EngineFailure failure, @Nullable String producerIid);

  /**
   * True while a whole-wave restart holds admission for the whole fleet
   * ({@code recovery.engine_restart_policy = whole_wave}).
   */
  boolean admissionHeld();

  /**
   * {@code monitoring degraded: <stage> <class>} while the monitoring has failed {@code
   * controller.monitor_failure_limit} passes in a row ({@link MonitorPasses}), else null.
   */
  default @Nullable String degradedReason() {
    return null;
  }

  /** A tracker that ignores everything: no breaker (unit tests of other parts). */
  EngineHealthTracker NONE = new EngineHealthTracker() {
    @Override
    public void prefillSucceeded(String iid) {}

    @Override
    public void decodeSucceeded(String iid) {}

    @Override
    public void legFailed(EngineFailure failure, @Nullable String producerIid) {}

    @Override
    public boolean admissionHeld() {
      return false;
    }
  };
}
