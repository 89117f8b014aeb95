package narwhal.adapters.kit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import narwhal.spi.Phase;
import narwhal.sim.FaultPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class EngineSimFaultsTest {

  @ParameterizedTest(name = "{0}")
  @EnumSource(Fault.Kind.class)
  void spec_everyKind_parsesInEngineSim(Fault.Kind kind) {
    Fault fault = sample(kind);

    String spec = EngineSimFaults.spec(fault);

    assertThat(FaultPlan.of(spec).specs()).containsExactly(spec);
  }

  @Test
  void spec_statusAndStreamError_carryTheMessageLastSoCommasSurvive() {
    assertThat(EngineSimFaults.spec(Fault.status(Phase.DECODE, 503)))
        .isEqualTo("status=503,phase=decode,message=kit-injected decode failure 503");
    assertThat(EngineSimFaults.spec(Fault.errorEventAfter(2, 500)))
        .isEqualTo("error-after=2,code=500,phase=decode,message=kit-injected stream error 500");
  }

  @Test
  void specsFor_keepsOnlyTheFaultsAimedAtThatEngine() {
    List<Fault> faults = List.of(Fault.status(Phase.PREFILL, 500), Fault.silenceAfter(2), Fault.dead(Phase.DECODE));

    assertThat(EngineSimFaults.specsFor(Phase.PREFILL, faults)).containsExactly("status=500,phase=prefill,"
        + "message=kit-injected prefill failure 500");
    assertThat(EngineSimFaults.specsFor(Phase.DECODE, faults)).containsExactly("silence-after=2,phase=decode", "dead");
  }

  @Test
  void descriptor_refusesKindsThatAreNotDescriptorFaults() {
    List<String> refused = new ArrayList<>();
    for (Fault.Kind kind : Fault.Kind.values()) {
      try {
        Fault.descriptor(kind);
      } catch (IllegalArgumentException e) {
        refused.add(kind.name());
      }
    }
    assertThat(refused).hasSize(Fault.Kind.values().length - 4).noneMatch(k -> k.startsWith("DESCRIPTOR_"));
  }

  private static Fault sample(Fault.Kind kind) {
    switch (kind) {
      case STATUS:
        return Fault.status(Phase.PREFILL, 503);
      case DELAY_HEADERS:
        return Fault.delayHeaders(Phase.DECODE, Duration.ofSeconds(3));
      case CLOSE_ON_RECEIPT:
        return Fault.closeOnReceipt(Phase.PREFILL);
      case DEAD:
        return Fault.dead(Phase.DECODE);
      case SILENCE_BEFORE_FIRST_TOKEN:
        return Fault.silenceBeforeFirstToken();
      case SILENCE_AFTER:
        return Fault.silenceAfter(2);
      case METADATA_WHILE_SILENT:
        return Fault.metadataWhileSilent(2, Duration.ofSeconds(2), Duration.ofMillis(100));
      case EOF_AFTER:
        return Fault.eofAfter(2);
      case RESET_AFTER:
        return Fault.resetAfter(2);
      case DONE_BEFORE_ANY_TOKEN:
        return Fault.doneBeforeAnyToken();
      case ERROR_EVENT_AFTER:
        return Fault.errorEventAfter(2, 500);
      default:
        return Fault.descriptor(kind);
    }
  }
}
