/**
 * Tenants: who may call the router ({@link narwhal.core.tenants.TenantDirectory}, the fleet
 * file's {@code tenants} section as a {@link narwhal.api.ClientAuthenticator}) and each
 * tenant's own admission limits ({@link narwhal.core.admission.TenantQuota}).
 */
@NullMarked
package narwhal.core.tenants;

import org.jspecify.annotations.NullMarked;
