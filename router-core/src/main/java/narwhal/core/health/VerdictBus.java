package narwhal.core.health;

/**
 * Where the breaker's decisions go beyond this router, and who probes an engine that is out.
 * Without a cluster ({@link #LOCAL}) nothing is published and this router probes every engine it
 * took out. With one, each verdict is published for the other replicas to apply ({@link
 * HealthMonitor#applyShared}), and exactly one replica runs an out engine's readmission probes.
 * Implementations must not block: {@link #publish} is called on the breaker's event loop.
 */
public interface VerdictBus {

  /** Shares a decision this router's breaker just applied. */
  void publish(EngineVerdict verdict);

  /** True when this router runs the readmission probes of {@code iid} while it is out of placement. */
  boolean probesHere(String iid);

  /** A router on its own: nothing shared, every probe run here. */
  VerdictBus LOCAL = new VerdictBus() {
    @Override
    public void publish(EngineVerdict verdict) {}

    @Override
    public boolean probesHere(String iid) {
      return true;
    }
  };
}
