package narwhal.core.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import org.junit.jupiter.api.Test;

/**
 * The placement rule: least resident work among the eligible engines, ties to the lowest iid;
 * decode avoids the producer unless nothing else can decode; exclusions, breaker conditions and
 * quarantine take engines out.
 */
class FleetPlacementTest {

  private static final long NOW = 1_000_000_000L;
  private final List<Reservation> held = new ArrayList<>();

  private static Fleet fleet(Object... iidRolePairs) {
    List<EngineSpec> specs = new ArrayList<>();
    for (int i = 0; i < iidRolePairs.length; i += 2) {
      specs.add(EngineSpec.of((String) iidRolePairs[i], "http://127.0.0.1:" + (8000 + i), (EngineRole) iidRolePairs[i + 1]));
    }
    return new Fleet(specs);
  }

  private void loadPrefill(Fleet f, String iid, int n) {
    for (int i = 0; i < n; i++) {
      held.add(f.get(iid).reservePrefill(0));
    }
  }

  private void loadDecode(Fleet f, String iid, int n) {
    for (int i = 0; i < n; i++) {
      held.add(f.get(iid).reserveDecode(0));
    }
  }

  @Test
  void prefill_picksTheLeastResidentPrefillCapableEngine_neverADecodeOnlyOne() {
    Fleet f = fleet("a", EngineRole.PREFILL, "b", EngineRole.BOTH, "c", EngineRole.DECODE);
    loadPrefill(f, "a", 2);
    loadDecode(f, "b", 1);

    assertThat(f.pickPrefill(Set.of(), NOW).iid()).isEqualTo("b");
    loadPrefill(f, "b", 2);
    assertThat(f.pickPrefill(Set.of(), NOW).iid()).isEqualTo("a");
  }

  @Test
  void residentWork_countsBothPhases() {
    Fleet f = fleet("a", EngineRole.BOTH, "b", EngineRole.BOTH);
    loadDecode(f, "a", 3);
    loadPrefill(f, "b", 2);

    assertThat(f.pickPrefill(Set.of(), NOW).iid()).isEqualTo("b");
    assertThat(f.pickDecode("x", Set.of(), NOW).iid()).isEqualTo("b");
  }

  @Test
  void ties_goToTheLowestIid() {
    Fleet f = fleet("p2", EngineRole.PREFILL, "p1", EngineRole.PREFILL, "d2", EngineRole.DECODE,
        "d1", EngineRole.DECODE);

    assertThat(f.pickPrefill(Set.of(), NOW).iid()).isEqualTo("p1");
    assertThat(f.pickDecode("p1", Set.of(), NOW).iid()).isEqualTo("d1");
  }

  @Test
  void decode_avoidsTheProducer_evenWhenTheProducerIsLessLoaded() {
    Fleet f = fleet("a", EngineRole.BOTH, "b", EngineRole.BOTH);
    loadDecode(f, "b", 5);

    assertThat(f.pickDecode("a", Set.of(), NOW).iid()).isEqualTo("b");
  }

  @Test
  void decode_fallsBackToTheProducer_whenNoOtherEngineCanDecode() {
    Fleet f = fleet("a", EngineRole.BOTH, "p", EngineRole.PREFILL);

    assertThat(f.pickDecode("a", Set.of(), NOW).iid()).isEqualTo("a");
  }

  @Test
  void decode_neverPicksAPrefillOnlyEngine() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "p2", EngineRole.PREFILL);

    assertThat(f.pickDecode("p1", Set.of(), NOW)).isNull();
  }

  @Test
  void exclusions_arePreferences_avoidingEveryCapableEngineStillPicksOne() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "p2", EngineRole.PREFILL, "d1", EngineRole.DECODE,
        "d2", EngineRole.DECODE);
    loadPrefill(f, "p2", 2);

    assertThat(f.pickPrefill(Set.of("p1"), NOW).iid()).isEqualTo("p2");
    // A role is never left empty by a request's own avoidances: the least loaded of them serves.
    assertThat(f.pickPrefill(Set.of("p1", "p2"), NOW).iid()).isEqualTo("p1");
    assertThat(f.pickDecode("p1", Set.of("d1"), NOW).iid()).isEqualTo("d2");
    assertThat(f.pickDecode("p1", Set.of("d1", "d2"), NOW).iid()).isEqualTo("d1");
  }

  @Test
  void exclusions_neverBringBackAHeldOrEjectedEngine() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "d1", EngineRole.DECODE, "d2", EngineRole.DECODE);
    f.get("d2").setCondition(EngineCondition.EJECTED, "connection");

    assertThat(f.pickDecode("p1", Set.of("d1"), NOW).iid()).isEqualTo("d1");
    f.get("d1").setCondition(EngineCondition.HELD, "stream");
    assertThat(f.pickDecode("p1", Set.of("d1"), NOW)).isNull();
  }

  @Test
  void decode_avoidedOthers_fallBackToTheProducer_thenToAnAvoidedOther() {
    Fleet f = fleet("a", EngineRole.BOTH, "b", EngineRole.DECODE);

    // Same-engine decode on a producer the request did not fail beats an engine it failed on.
    assertThat(f.pickDecode("a", Set.of("b"), NOW).iid()).isEqualTo("a");
    assertThat(f.pickDecode("a", Set.of("a", "b"), NOW).iid()).isEqualTo("b");
  }

  @Test
  void heldAndEjectedEngines_areOutOfPlacement() {
    Fleet f = fleet("a", EngineRole.BOTH, "b", EngineRole.BOTH, "c", EngineRole.BOTH);
    loadPrefill(f, "c", 4);
    f.get("a").setCondition(EngineCondition.HELD, "stream");
    f.get("b").setCondition(EngineCondition.EJECTED, "connection");

    assertThat(f.pickPrefill(Set.of(), NOW).iid()).isEqualTo("c");
    assertThat(f.pickDecode("c", Set.of(), NOW).iid()).isEqualTo("c");
  }

  @Test
  void quarantine_skipsAnEngineWhileAnotherCoversTheRole_butNotTheLastOne() {
    Fleet f = fleet("p1", EngineRole.PREFILL, "p2", EngineRole.PREFILL);
    loadPrefill(f, "p2", 3);
    f.get("p1").quarantineUntil(NOW + 1_000);

    assertThat(f.pickPrefill(Set.of(), NOW).iid()).isEqualTo("p2");
    assertThat(f.pickPrefill(Set.of("p2"), NOW).iid()).isEqualTo("p1");
    assertThat(f.pickPrefill(Set.of(), NOW + 1_000).iid()).isEqualTo("p1");
  }

  @Test
  void releasedReservations_stopCounting() {
    Fleet f = fleet("a", EngineRole.PREFILL, "b", EngineRole.PREFILL);
    loadPrefill(f, "a", 1);
    assertThat(f.pickPrefill(Set.of(), NOW).iid()).isEqualTo("b");

    held.forEach(Reservation::release);
    held.forEach(Reservation::release);

    assertThat(f.totalResidentPrefill()).isZero();
    assertThat(f.pickPrefill(Set.of(), NOW).iid()).isEqualTo("a");
  }
}
