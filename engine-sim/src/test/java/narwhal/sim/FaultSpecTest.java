package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FaultSpecTest {

  @Test
  void bareName() {
    FaultSpec spec = FaultSpec.parse("refuse");

    assertThat(spec.kind()).isEqualTo(FaultKind.REFUSE);
    assertThat(spec.count()).isEqualTo(FaultSpec.UNLIMITED);
    assertThat(spec.phase()).isNull();
  }

  @Test
  void valueAndOptions() {
    FaultSpec spec = FaultSpec.parse("silence-after=3,ms=250,metadata-every=50");

    assertThat(spec.kind()).isEqualTo(FaultKind.SILENCE_AFTER);
    assertThat(spec.value()).isEqualTo(3);
    assertThat(spec.millisOption("ms", -1)).isEqualTo(250);
    assertThat(spec.millisOption("metadata-every", -1)).isEqualTo(50);
  }

  @Test
  void silenceComments_parseForBothSilences_andNeedAPositiveInterval() {
    RequestFaults faults = new RequestFaults();
    faults.apply(FaultSpec.parse("silence-after=2,ms=900,comments=100,phase=decode"));
    faults.apply(FaultSpec.parse("silence-first=forever,comments=250"));

    assertThat(faults.silenceCommentsMillis).isEqualTo(100);
    assertThat(faults.metadataEveryMillis).isZero();
    assertThat(faults.silenceFirstCommentsMillis).isEqualTo(250);
    assertThatThrownBy(() -> FaultSpec.parse("silence-after=1,comments=0")).hasMessageContaining("comments must be > 0");
    assertThatThrownBy(() -> FaultSpec.parse("silence-after=1,comments=forever"))
        .hasMessageContaining("comments must be a whole number");
    assertThatThrownBy(() -> FaultSpec.parse("status=503,comments=10")).hasMessageContaining("does not apply");
  }

  @Test
  void hugeOrForeverMillis_meanForever() {
    assertThat(FaultSpec.parse("silence-first=forever").value()).isEqualTo(FaultSpec.FOREVER);
    assertThat(FaultSpec.parse("silence-first=99999999999").value()).isEqualTo(FaultSpec.FOREVER);
    assertThat(FaultSpec.parse("silence-first=10").value()).isEqualTo(10);
  }

  @Test
  void messageMayContainCommas() {
    FaultSpec spec = FaultSpec.parse("status=503,message=busy, come back later,count=2");

    assertThat(spec.options().get("message")).isEqualTo("busy, come back later");
    assertThat(spec.count()).isEqualTo(2);
  }

  @Test
  void failFirst_wrapsInnerSpecWithCount() {
    FaultSpec spec = FaultSpec.parse("fail-first=3,then=error-after=2,code=502,message=a,b");

    assertThat(spec.kind()).isEqualTo(FaultKind.ERROR_AFTER);
    assertThat(spec.count()).isEqualTo(3);
    assertThat(spec.value()).isEqualTo(2);
    assertThat(spec.intOption("code", 0)).isEqualTo(502);
    assertThat(spec.options().get("message")).isEqualTo("a,b");
  }

  @Test
  void phaseModifier() {
    assertThat(FaultSpec.parse("status=500,phase=prefill").phase()).isEqualTo(RequestPhase.PREFILL);
    assertThat(FaultSpec.parse("fail-first=1,phase=decode,then=refuse").phase())
        .isEqualTo(RequestPhase.DECODE);
  }

  @Test
  void errorsNameTheProblem() {
    assertThatThrownBy(() -> FaultSpec.parse("explode"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown fault 'explode'");
    assertThatThrownBy(() -> FaultSpec.parse("reset-after=soon"))
        .hasMessageContaining("must be a whole number");
    assertThatThrownBy(() -> FaultSpec.parse("refuse=1")).hasMessageContaining("takes no value");
    assertThatThrownBy(() -> FaultSpec.parse("eof-after")).hasMessageContaining("needs a value");
    assertThatThrownBy(() -> FaultSpec.parse("status=200")).hasMessageContaining("400..599");
    assertThatThrownBy(() -> FaultSpec.parse("refuse,ms=3")).hasMessageContaining("does not apply");
    assertThatThrownBy(() -> FaultSpec.parse("refuse,phase=both")).hasMessageContaining("prefill or decode");
    assertThatThrownBy(() -> FaultSpec.parse("fail-first=2")).hasMessageContaining("then=");
    assertThatThrownBy(() -> FaultSpec.parse("reset-after=1,oops")).hasMessageContaining("unexpected 'oops'");
  }

  @Test
  void errorAfterCode_isAnyIntegerOrAString() {
    assertThat(FaultSpec.parse("error-after=1").errorCode().asInt()).isEqualTo(500);
    assertThat(FaultSpec.parse("error-after=1,code=503").errorCode().isIntegralNumber()).isTrue();
    assertThat(FaultSpec.parse("error-after=1,code=200").errorCode().asInt()).isEqualTo(200);
    assertThat(FaultSpec.parse("error-after=1,code=-7").errorCode().asLong()).isEqualTo(-7);
    assertThat(FaultSpec.parse("error-after=1,code=overloaded").errorCode().textValue()).isEqualTo("overloaded");
    assertThat(FaultSpec.parse("error-after=1,code=\"503\"").errorCode().textValue()).isEqualTo("503");
    assertThat(FaultSpec.parse("error-after=1,code=503,message=a, b").options().get("message")).isEqualTo("a, b");
  }

  @Test
  void errorCode_standsForItsStatusOnlyWhenAnIntegerIn400To599() {
    assertThat(FaultSpec.statusFor(FaultSpec.parseErrorCode("429"))).isEqualTo(429);
    assertThat(FaultSpec.statusFor(FaultSpec.parseErrorCode("599"))).isEqualTo(599);
    assertThat(FaultSpec.statusFor(FaultSpec.parseErrorCode("200"))).isEqualTo(500);
    assertThat(FaultSpec.statusFor(FaultSpec.parseErrorCode("600"))).isEqualTo(500);
    assertThat(FaultSpec.statusFor(FaultSpec.parseErrorCode("\"503\""))).isEqualTo(500);
    assertThat(FaultSpec.statusFor(FaultSpec.parseErrorCode("oops"))).isEqualTo(500);
  }

  @Test
  void badErrorCodes_nameTheProblem() {
    assertThatThrownBy(() -> FaultSpec.parse("error-after=1,code="))
        .hasMessageContaining("code needs a value: an integer");
    assertThatThrownBy(() -> FaultSpec.parse("error-after=1,code=99999999999999999999"))
        .hasMessageContaining("does not fit in 64 bits");
  }

  @Test
  void kvExtraField_takesAJsonOrTextValue_commasIncluded() {
    FaultSpec json = FaultSpec.parse("kv-extra-field=x_hint={\"tier\":2,\"ids\":[1,2]},phase=prefill,count=1");
    FaultSpec text = FaultSpec.parse("kv-extra-field=x_note=plain text");

    assertThat(json.kind()).isEqualTo(FaultKind.KV_EXTRA_FIELD);
    assertThat(json.argument()).isEqualTo("x_hint={\"tier\":2,\"ids\":[1,2]}");
    assertThat(json.phase()).isEqualTo(RequestPhase.PREFILL);
    assertThat(json.count()).isEqualTo(1);
    RequestFaults faults = new RequestFaults();
    faults.apply(json);
    faults.apply(text);
    faults.apply(FaultSpec.parse("kv-extra-field=x_flag=true"));
    assertThat(faults.kvExtraFields.get("x_hint").toString()).isEqualTo("{\"tier\":2,\"ids\":[1,2]}");
    assertThat(faults.kvExtraFields.get("x_note").textValue()).isEqualTo("plain text");
    assertThat(faults.kvExtraFields.get("x_flag").isBoolean()).isTrue();
  }

  @Test
  void kvExtraField_errorsNameTheProblem() {
    assertThatThrownBy(() -> FaultSpec.parse("kv-extra-field")).hasMessageContaining("expected NAME=VALUE");
    assertThatThrownBy(() -> FaultSpec.parse("kv-extra-field=novalue")).hasMessageContaining("expected NAME=VALUE");
    assertThatThrownBy(() -> FaultSpec.parse("kv-extra-field==1")).hasMessageContaining("expected NAME=VALUE");
  }

  @Test
  void directivesAreFoundAnywhereInText() {
    List<FaultSpec> specs = Directives.parse("a [[sim:eos-after=2]] b [[sim:silence-first=5]]");

    assertThat(specs).extracting(FaultSpec::kind).containsExactly(FaultKind.EOS_AFTER, FaultKind.SILENCE_FIRST);
    assertThat(Directives.parse("no directives [[simple]]")).isEmpty();
  }

  @Test
  void countedFaults_areUsedUpPerPlan() {
    ActiveFaults faults = new ActiveFaults(FaultPlan.of("status=503,count=1", "eos-after=1"));

    assertThat(faults.resolve(RequestPhase.DECODE, List.of()).status).isEqualTo(503);
    RequestFaults second = faults.resolve(RequestPhase.DECODE, List.of());
    assertThat(second.status).isZero();
    assertThat(second.eosAfter).isEqualTo(1);
  }

  @Test
  void faultPlan_keepsSpecsAsWritten() {
    FaultPlan plan = FaultPlan.of("dead").and("refuse,count=1");

    assertThat(plan.specs()).containsExactly("dead", "refuse,count=1");
    assertThat(plan).isEqualTo(FaultPlan.of("dead", "refuse,count=1"));
    assertThat(FaultPlan.none().isEmpty()).isTrue();
  }
}
