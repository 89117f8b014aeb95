package narwhal.sim;

import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.post;
import static narwhal.sim.SimHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KvTransferTest {
  private static final String PREFILL_PARAMS =
      "\"kv_transfer_params\":{\"do_remote_decode\":true,\"do_remote_prefill\":false,"
          + "\"remote_engine_id\":null,\"remote_block_ids\":null,\"remote_host\":null,"
          + "\"remote_port\":null}";
  /** 20 words: two KV blocks. */
  private static final String PROMPT =
      "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 w20";

  private SimEngine prefill;
  private SimEngine decode;

  @BeforeEach
  void start() {
    prefill =
        SimEngine.start(
            SimOptions.builder()
                .engineId("engine-p")
                .kvHost("10.0.0.7")
                .kvPort(5601)
                .tpSize(2)
                .seed(11)
                .interTokenMillis(1)
                .build());
    decode = SimEngine.start(SimOptions.builder().engineId("engine-d").seed(11).interTokenMillis(1).build());
  }

  @AfterEach
  void stop() {
    prefill.close();
    decode.close();
  }

  private JsonNode prefillLeg(String prompt, String requestId) {
    HttpResponse<String> response =
        post(prefill, "/v1/completions", completion(prompt, 1, false, PREFILL_PARAMS),
            "X-Request-Id", requestId);
    assertThat(response.statusCode()).isEqualTo(200);
    return json(response.body());
  }

  @Test
  void prefillAtMaxTokensOne_returnsNixlDescriptor() {
    JsonNode body = prefillLeg(PROMPT, "req-1");

    assertThat(body.get("choices").get(0).get("finish_reason").asText()).isEqualTo("length");
    JsonNode kv = body.get("kv_transfer_params");
    assertThat(kv.get("do_remote_prefill").asBoolean()).isTrue();
    assertThat(kv.get("do_remote_decode").asBoolean()).isFalse();
    assertThat(kv.get("remote_block_ids")).hasSize(2);
    assertThat(kv.get("remote_block_ids").get(0).isInt()).isTrue();
    assertThat(kv.get("remote_engine_id").asText()).isEqualTo("engine-p");
    assertThat(kv.get("remote_request_id").asText()).matches("cmpl-req-1-0-[0-9a-f]{8}");
    assertThat(kv.get("remote_host").asText()).isEqualTo("10.0.0.7");
    assertThat(kv.get("remote_port").asInt()).isEqualTo(5601);
    assertThat(kv.get("tp_size").asInt()).isEqualTo(2);
    assertThat(prefill.stats().prefills()).isEqualTo(1);
  }

  @Test
  void chatPrefill_usesChatInternalId() {
    String body =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":1," + PREFILL_PARAMS + "}";
    JsonNode kv =
        json(post(prefill, "/v1/chat/completions", body, "X-Request-Id", "c9").body())
            .get("kv_transfer_params");

    assertThat(kv.get("remote_request_id").asText()).matches("chatcmpl-c9-[0-9a-f]{8}");
    assertThat(kv.get("remote_block_ids")).hasSize(1);
  }

  @Test
  void descriptorOnlyForRemoteDecodeStoppedByLength() {
    JsonNode plain = json(post(prefill, "/v1/completions", completion("x y", 1, false)).body());
    JsonNode stoppedByEos =
        json(
            post(prefill, "/v1/completions",
                    completion("[[sim:eos-after=1]] x", 1, false, PREFILL_PARAMS))
                .body());
    String streamed =
        post(prefill, "/v1/completions", completion("x y", 1, true, PREFILL_PARAMS)).body();

    assertThat(plain.get("kv_transfer_params").isNull()).isTrue();
    assertThat(stoppedByEos.get("choices").get(0).get("finish_reason").asText()).isEqualTo("stop");
    assertThat(stoppedByEos.get("kv_transfer_params").isNull()).isTrue();
    assertThat(streamed).doesNotContain("kv_transfer_params");
    assertThat(sseData(streamed)).last().isEqualTo("[DONE]");
  }

  @Test
  void decodeWithDescriptor_countsKvPullAndRegeneratesSameText() {
    JsonNode kv = prefillLeg(PROMPT, "req-2").get("kv_transfer_params");

    String decodeBody = completion(PROMPT, 5, true, "\"kv_transfer_params\":" + kv);
    HttpResponse<String> response = post(decode, "/v1/completions", decodeBody, "X-Request-Id", "req-2");

    assertThat(decode.stats().kvPulls()).isEqualTo(1);
    assertThat(decode.stats().prefills()).isZero();
    StringBuilder text = new StringBuilder();
    for (String event : sseData(response.body())) {
      if (!event.equals("[DONE]")) {
        text.append(json(event).get("choices").get(0).get("text").asText());
      }
    }
    assertThat(text.toString()).isEqualTo(SimEngine.expectedText(11, PROMPT, 5));
    assertThat(SimEngine.expectedText(11, PROMPT, 1))
        .isEqualTo(prefillLeg(PROMPT, "again").get("choices").get(0).get("text").asText());
  }

  @Test
  void decodeWithUnusableDescriptor_recomputesWithoutPull() {
    ObjectNode kv = (ObjectNode) prefillLeg(PROMPT, "req-3").get("kv_transfer_params");
    kv.remove("remote_request_id");

    HttpResponse<String> response =
        post(decode, "/v1/completions", completion(PROMPT, 2, false, "\"kv_transfer_params\":" + kv));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(decode.stats().kvPulls()).isZero();
  }

  @Test
  void descriptorFaults_spoilTheDescriptor() {
    prefill.setFaults(FaultPlan.of("kv-missing-engine-id,count=1", "kv-bad-block-ids,count=1"));
    // Both faults match the first request; the later one in the plan wins, like any same-kind pair.
    JsonNode badBlocks = prefillLeg(PROMPT, "f1").get("kv_transfer_params");
    prefill.setFaults(FaultPlan.of("kv-missing-engine-id"));
    JsonNode missingId = prefillLeg(PROMPT, "f2").get("kv_transfer_params");
    prefill.setFaults(FaultPlan.of("kv-wrong-connector"));
    JsonNode wrongConnector = prefillLeg(PROMPT, "f3").get("kv_transfer_params");
    prefill.setFaults(FaultPlan.of("kv-none"));
    JsonNode none = prefillLeg(PROMPT, "f4").get("kv_transfer_params");

    assertThat(badBlocks.get("remote_block_ids").toString()).isEqualTo("[\"a\",-1]");
    assertThat(missingId.has("remote_engine_id")).isFalse();
    assertThat(missingId.get("remote_block_ids")).hasSize(2);
    assertThat(wrongConnector.get("kv_connector").asText()).isEqualTo("P2pNcclConnector");
    assertThat(wrongConnector.get("remote_engine_id").asText()).isEqualTo("engine-p");
    assertThat(none.isNull()).isTrue();

    for (JsonNode spoiled : List.of(badBlocks, missingId, wrongConnector)) {
      post(decode, "/v1/completions", completion(PROMPT, 1, false, "\"kv_transfer_params\":" + spoiled));
    }
    assertThat(decode.stats().kvPulls()).isZero();
  }

  @Test
  void wrongConnector_isACompleteNixlDescriptorNamingAnotherConnector() {
    prefill.setFaults(FaultPlan.of("kv-wrong-connector"));
    ObjectNode wrong = (ObjectNode) prefillLeg(PROMPT, "wc").get("kv_transfer_params");

    assertThat(wrong.get("kv_connector").asText()).isEqualTo("P2pNcclConnector");
    assertThat(wrong.get("remote_block_ids")).hasSize(2).allMatch(JsonNode::isInt);
    assertThat(wrong.get("remote_engine_id").asText()).isEqualTo("engine-p");
    assertThat(wrong.get("remote_host").asText()).isEqualTo("10.0.0.7");
    assertThat(wrong.get("remote_port").asInt()).isEqualTo(5601);
    assertThat(wrong.get("tp_size").asInt()).isEqualTo(2);
    assertThat(wrong.get("remote_request_id").asText()).startsWith("cmpl-wc-0-");
    // Without the connector's name it would be usable: the name alone makes NIXL refuse it.
    ObjectNode unnamed = wrong.deepCopy();
    unnamed.remove("kv_connector");
    assertThat(KvTransfer.isUsablePull(wrong)).isFalse();
    assertThat(KvTransfer.isUsablePull(unnamed)).isTrue();
    assertThat(KvTransfer.isUsablePull(unnamed.deepCopy().put("kv_connector", "NixlConnector"))).isTrue();
  }

  @Test
  void extraFields_fromOptionsAndDirectives_areAddedToEveryDescriptor() {
    SimEngine extra =
        SimEngine.start(
            SimOptions.builder()
                .engineId("engine-x")
                .kvExtraField("x_runtime", java.util.Map.of("tier", 2))
                .kvExtraField("x_epoch", 7)
                .build());
    try {
      String prompt = "[[sim:kv-extra-field=x_note=from the prompt]] [[sim:kv-extra-field=x_epoch=8]] p";
      HttpResponse<String> response =
          post(extra, "/v1/completions", completion(prompt, 1, false, PREFILL_PARAMS), "X-Request-Id", "xr");
      JsonNode kv = json(response.body()).get("kv_transfer_params");

      assertThat(kv.get("x_runtime").toString()).isEqualTo("{\"tier\":2}");
      assertThat(kv.get("x_note").asText()).isEqualTo("from the prompt");
      assertThat(kv.get("x_epoch").asInt()).isEqualTo(8); // the request's field replaces the engine's
      assertThat(kv.get("remote_engine_id").asText()).isEqualTo("engine-x");
      assertThat(KvTransfer.isUsablePull(kv)).isTrue();
    } finally {
      extra.close();
    }
  }

  @Test
  void prefillResponses_recordExactlyTheParamsEachPrefillReturned() {
    JsonNode first = prefillLeg(PROMPT, "r1").get("kv_transfer_params");
    prefill.setFaults(FaultPlan.of("kv-none"));
    prefillLeg(PROMPT, "r2");
    post(prefill, "/v1/completions", completion(PROMPT, 2, false)); // not a prefill leg

    List<PrefillResponse> recorded = prefill.prefillResponses();
    assertThat(recorded).extracting(PrefillResponse::requestId).containsExactly("r1", "r2");
    assertThat(recorded.get(0).responseId()).isEqualTo("cmpl-r1");
    assertThat(recorded.get(0).kvTransferParams()).isEqualTo(first);
    assertThat(recorded.get(1).kvTransferParams().isNull()).isTrue();

    prefill.clearReceived();
    assertThat(prefill.prefillResponses()).isEmpty();
    assertThat(prefill.received()).isEmpty();
  }
}
