// The public API's answers, as @ca/contracts declares them for the gateway (types only: nothing of
// the contracts library reaches the browser bundle).
export type {
  /** An entry of GET /v2/ca (docs/api.md#list-the-cas). */
  CaSummary as CaEntry,
  /** GET /v1/certificates/{id} (docs/api.md#get-a-certificate). */
  CertificateDetail,
  /** An item of GET /v2/certificates (docs/api.md#search-certificates). */
  InventoryItem as CertificateItem,
  InventoryPage as Page,
  /** GET /v2/certificates/summary. */
  InventorySummary as Summary,
} from '@ca/contracts';
