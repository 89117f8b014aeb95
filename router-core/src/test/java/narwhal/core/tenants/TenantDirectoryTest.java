package narwhal.core.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import narwhal.api.Authentication;
import narwhal.api.Caller;
import narwhal.config.ApiKeyHash;
import narwhal.config.TenantConfig;
import narwhal.config.TenantsConfig;
import org.junit.jupiter.api.Test;

/** Key lookup by id, the constant-time comparison's outcomes, model permission and quotas. */
class TenantDirectoryTest {

  private static final String ALICE_KEY = "nwk_aliceK01_" + "A".repeat(43);
  private static final String ALICE_NEXT = "nwk_aliceK02_" + "B".repeat(43);
  private static final String BOB_KEY = "nwk_bobKey01_" + "C".repeat(43);
  private static final String OPERATOR_KEY = "nwk_operKey1_" + "D".repeat(43);
  private static final byte[] SALT = "0123456789abcdef".getBytes();

  private final List<String> failures = new ArrayList<>();

  private TenantDirectory directory(List<ApiKeyHash> operatorKeys) {
    return new TenantDirectory(new TenantsConfig(List.of(
        new TenantConfig("alice", List.of(ApiKeyHash.of(ALICE_KEY, SALT), ApiKeyHash.of(ALICE_NEXT, SALT)),
            List.of(), 4, 0, 0, 0.5),
        new TenantConfig("bob", List.of(ApiKeyHash.of(BOB_KEY, SALT)), List.of("other-model"), 0, 2, 4, 1.0)),
        operatorKeys), 10, failures::add);
  }

  @Test
  void eachOfATenantsKeys_provesTheTenant() {
    TenantDirectory d = directory(List.of());

    assertThat(d.authenticate("Bearer " + ALICE_KEY).caller()).isEqualTo(Caller.tenant("alice"));
    assertThat(d.authenticate("bearer   " + ALICE_NEXT + " ").caller()).isEqualTo(Caller.tenant("alice"));
    assertThat(d.authenticate("Bearer " + BOB_KEY).caller()).isEqualTo(Caller.tenant("bob"));
    assertThat(failures).isEmpty();
  }

  @Test
  void noKey_isMissing_andAWrongOne_isUnknown_neverEchoingIt() {
    TenantDirectory d = directory(List.of());
    String wrongSecret = "nwk_aliceK01_" + "Z".repeat(43);

    Authentication none = d.authenticate(List.of());
    Authentication basic = d.authenticate("Basic dXNlcjpwYXNz");
    Authentication wrong = d.authenticate("Bearer " + wrongSecret);
    Authentication unknownId = d.authenticate("Bearer nwk_nobody00_" + "A".repeat(43));
    Authentication notAKey = d.authenticate("Bearer sk-" + "x".repeat(40));

    assertThat(none.refusal().status()).isEqualTo(401);
    assertThat(none.refusal().code()).isEqualTo("missing_api_key");
    assertThat(basic.reason()).isEqualTo("missing");
    for (Authentication a : List.of(wrong, unknownId, notAKey)) {
      assertThat(a.isAccepted()).isFalse();
      assertThat(a.refusal().status()).isEqualTo(401);
      assertThat(a.refusal().code()).isEqualTo("invalid_api_key");
      assertThat(a.refusal().message()).doesNotContain("nwk_").doesNotContain("sk-");
    }
    assertThat(failures).containsExactly("missing", "missing", "unknown", "unknown", "unknown");
  }

  @Test
  void twoAuthorizationValues_areAmbiguous_evenWhenBothAreGood() {
    TenantDirectory d = directory(List.of(ApiKeyHash.of(OPERATOR_KEY, SALT)));

    Authentication two = d.authenticate(List.of("Bearer " + ALICE_KEY, "Bearer " + BOB_KEY));
    Authentication twice = d.authenticate(List.of("Bearer " + ALICE_KEY, "Bearer " + ALICE_KEY));
    Authentication operator = d.authenticateOperator(List.of("Bearer " + OPERATOR_KEY, "Bearer " + OPERATOR_KEY));

    for (Authentication a : List.of(two, twice, operator)) {
      assertThat(a.isAccepted()).isFalse();
      assertThat(a.refusal().status()).isEqualTo(400);
      assertThat(a.refusal().code()).isEqualTo("ambiguous_authorization");
      assertThat(a.refusal().message()).contains("2 Authorization headers").contains("exactly one")
          .doesNotContain("nwk_");
    }
    assertThat(failures).containsExactly("ambiguous", "ambiguous", "ambiguous");
  }

  @Test
  void aTabAfterBearer_isMalformed_saysSo_andOneOrMoreSpacesAreFine() {
    TenantDirectory d = directory(List.of(ApiKeyHash.of(OPERATOR_KEY, SALT)));

    Authentication tab = d.authenticate("Bearer\t" + ALICE_KEY);
    Authentication formFeed = d.authenticate("bearer\f" + ALICE_KEY);
    Authentication operatorTab = d.authenticateOperator("Bearer\t" + OPERATOR_KEY);

    for (Authentication a : List.of(tab, formFeed, operatorTab)) {
      assertThat(a.refusal().status()).isEqualTo(401);
      assertThat(a.refusal().code()).isEqualTo("invalid_api_key");
      assertThat(a.refusal().message()).contains("separate Bearer and the key with a space").contains("RFC 6750")
          .doesNotContain("nwk_");
    }
    assertThat(failures).containsExactly("malformed", "malformed", "malformed");
    assertThat(d.authenticate("Bearer  " + ALICE_KEY).caller()).as("RFC 6750: 1*SP").isEqualTo(Caller.tenant("alice"));
    assertThat(d.authenticate("Bearerish " + ALICE_KEY).reason()).as("another scheme").isEqualTo("missing");
  }

  @Test
  void operatorKeys_openOnlyTheOperatorRoutes_andTenantKeysDoNotOpenThem() {
    TenantDirectory d = directory(List.of(ApiKeyHash.of(OPERATOR_KEY, SALT)));

    assertThat(d.authenticateOperator("Bearer " + OPERATOR_KEY).isAccepted()).isTrue();
    assertThat(d.authenticateOperator("Bearer " + ALICE_KEY).isAccepted()).isFalse();
    assertThat(d.authenticateOperator(List.of()).refusal().status()).isEqualTo(401);
    assertThat(d.authenticate("Bearer " + OPERATOR_KEY).isAccepted()).as("not a tenant").isFalse();
    assertThat(directory(List.of()).authenticateOperator(List.of()).isAccepted()).as("no operator keys: open").isTrue();
  }

  @Test
  void aTenantRestrictedToOtherModels_isForbidden_andAnUnrestrictedOneIsNot() {
    TenantDirectory d = directory(List.of());

    assertThat(d.forbidden(Caller.tenant("alice"), "m")).isNull();
    assertThat(d.forbidden(Caller.tenant("bob"), "other-model")).isNull();
    assertThat(d.forbidden(Caller.tenant("bob"), "m").status()).isEqualTo(403);
    assertThat(d.forbidden(Caller.ANONYMOUS, "m")).isNull();
    assertThat(failures).containsExactly("model_not_allowed");
  }

  @Test
  void quotas_carryTheTenantsLimits_andItsShareOfTheQueue() {
    TenantDirectory d = directory(List.of());

    assertThat(d.quota(Caller.tenant("alice")).maxInFlight()).isEqualTo(4);
    assertThat(d.quota(Caller.tenant("alice")).maxQueued()).isEqualTo(5);
    assertThat(d.quota(Caller.tenant("bob")).maxQueued()).isEqualTo(10);
    assertThat(d.quota(Caller.ANONYMOUS)).isNull();
    assertThat(d.names()).containsExactly("alice", "bob");
  }

  @Test
  void withoutTenants_everyCallerIsAnonymous() {
    TenantDirectory d = TenantDirectory.none();

    assertThat(d.required()).isFalse();
    assertThat(d.authenticate(List.of()).caller()).isEqualTo(Caller.ANONYMOUS);
    assertThat(d.authenticate("Bearer whatever").caller()).isEqualTo(Caller.ANONYMOUS);
  }
}
