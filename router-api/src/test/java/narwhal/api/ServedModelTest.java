package narwhal.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import narwhal.proto.v1.CompletionRequest;
import org.junit.jupiter.api.Test;

/** The served-model rule every front-end applies. */
class ServedModelTest {

  @Test
  void servedModel_pinsAnUnnamedRequest_andRefusesAnotherModel() throws InvalidRequestException {
    CompletionRequest unnamed = CompletionRequest.newBuilder().putExtraFields("model", "null").build();
    assertThat(ServedModel.pin(unnamed, "m").getModel()).isEqualTo("m");
    assertThat(ServedModel.pin(unnamed, "m").getExtraFieldsMap()).doesNotContainKey("model");

    CompletionRequest other = CompletionRequest.newBuilder().setModel("x").build();
    assertThatThrownBy(() -> ServedModel.pin(other, "m"))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
          assertThat(e.error().status()).isEqualTo(404);
          assertThat(e.error().code()).isEqualTo("model_not_found");
          assertThat(e.getMessage()).isEqualTo("The model `x` does not exist; this router serves `m`.");
        });
  }
}
