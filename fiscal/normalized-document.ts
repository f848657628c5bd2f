// What the fiscal parsers produce: one shape for DIAN UBL 2.1 and CFDI 4.0, in minor units and ISO strings.
// Pure data: no I/O, no ORM. Amounts are bigint minor units (cents); rates and quantities are exact decimal strings.

export type FiscalCountry = 'COL' | 'MEX';
/** `expense`: a DIAN documento soporte, the company's own record of a purchase from someone not obliged to invoice. */
export type FiscalDocumentType = 'invoice' | 'credit_note' | 'debit_note' | 'expense';

export interface FiscalParty {
  name: string;
  /** NIT, CC, CE, TI, PA (passport), NIT_EXT... in Colombia; RFC in Mexico. */
  identifierType: string;
  /** Without the check digit, dots or dashes. */
  identifierNumber: string;
  /** Colombian NIT check digit (DV), when given. */
  checkDigit: string | null;
  email: string | null;
  phone: string | null;
  address: string | null;
}

export interface FiscalAdjustment {
  /** `tax` (IVA, INC, ICA, IEPS...), `withholding` (ReteFuente, ReteIVA, ISR, IVA retenido...), `discount` or `charge`. */
  type: 'tax' | 'withholding' | 'discount' | 'charge';
  /** Tax scheme code: DIAN `01` IVA, `04` INC, `03` ICA, `06` ReteFuente...; SAT `001` ISR, `002` IVA, `003` IEPS. */
  code: string | null;
  /** Human name of the scheme when the XML gives one (e.g. `IVA`). */
  name: string | null;
  /** Fraction as a decimal string: "0.19" for 19 %. Null for fixed amounts (Cuota) or exempt lines. */
  rate: string | null;
  /** Percentage as a decimal string: "19". */
  ratePercentage: string | null;
  baseAmountCents: bigint;
  amountCents: bigint;
  /** Whether the amount is already included in the line's price (false for UBL and CFDI taxes). */
  isInclusive: boolean;
}

export interface FiscalLineItem {
  /** 1-based, in document order. */
  position: number;
  name: string;
  description: string | null;
  /** Product code: the seller's item identification (UBL) or ClaveProdServ / NoIdentificacion (CFDI). */
  code: string | null;
  /** Exact decimal string. */
  quantity: string;
  unitCode: string | null;
  unitPriceCents: bigint;
  /** Line amount before taxes (after line discounts). */
  subtotalCents: bigint;
  /** Subtotal plus taxes minus withholdings of the line. */
  totalCents: bigint;
  adjustments: FiscalAdjustment[];
  /** Anything else worth keeping (e.g. SAT ClaveProdServ, the exact unit price string, ObjetoImp). */
  metadata: Record<string, unknown>;
}

export interface FiscalReferenceToOther {
  documentNumber: string | null;
  /** CUFE/CUDE or SAT UUID of the referenced document. */
  fiscalReference: string | null;
  issueDate: string | null;
  /** CFDI TipoRelacion, or the DIAN discrepancy concept. */
  relation: string | null;
}

/** A stated exchange rate: one unit of `sourceCurrency` is worth `rate` units of `targetCurrency`. */
export interface FiscalExchangeRate {
  /** Exact decimal string, greater than zero. */
  rate: string;
  /** The document's currency. */
  sourceCurrency: string;
  /** The country's own currency: COP in Colombia, MXN in Mexico (another, for a rate stated as information). */
  targetCurrency: string;
  /** YYYY-MM-DD: UBL PaymentExchangeRate/Date, or the CFDI's issue day; null when the file gives none. */
  date: string | null;
}

/**
 * How a DIAN PayableAmount treated PrepaidAmount: `payable_net_of_prepaid` when it is the total less the prepaid
 * amount (UBL's definition), `payable_includes_prepaid` when it is the total and the prepaid amount was not subtracted.
 */
export const PREPAID_CONVENTIONS = ['payable_net_of_prepaid', 'payable_includes_prepaid'] as const;
export type PrepaidConvention = (typeof PREPAID_CONVENTIONS)[number];

export interface FiscalPrepaid {
  amountCents: bigint;
  convention: PrepaidConvention;
}

/** A DIAN numbering resolution (`sts:InvoiceControl`) as the document states it. */
export interface FiscalResolution {
  number: string | null;
  /** YYYY-MM-DD */
  validFrom: string | null;
  validTo: string | null;
  prefix: string | null;
  rangeFrom: string | null;
  rangeTo: string | null;
}

/**
 * What a DIAN documento soporte (Invoice, InvoiceTypeCode 05) says beyond an invoice. The acquirer issues it for a
 * purchase from someone not obliged to invoice: the seller is the one paid, the acquirer is the company.
 */
export interface SupportDocumentFacts {
  /** `cbc:ID`. */
  documentNumber: string;
  /** `cbc:IssueDate`, YYYY-MM-DD. */
  issueDate: string;
  /** The CUDS (`cbc:UUID`), 96 lowercase hexadecimal characters. */
  cuds: string;
  /** `recomputed`: it equals its composition with the PIN of the software that issued it; `format`: only its shape could be checked. */
  cudsCheck: 'recomputed' | 'format';
  /** The seller who does not invoice (NumSNO): the beneficiary. */
  seller: FiscalParty;
  /** The acquirer who issued the document (NITABS): the company. */
  buyer: FiscalParty;
  /** True when the file put the acquirer in AccountingSupplierParty and the seller in AccountingCustomerParty. */
  partiesReversed: boolean;
  resolution: FiscalResolution | null;
  /** `ProfileExecutionID` read: production (1) or test (2). */
  environment: 'production' | 'test' | null;
}

/** What the parser is told about who reads the file: the company it is for, the software the service issues with. */
export interface FiscalParseContext {
  /** The company's tax identifier (NIT in Colombia), to tell its own party in a documento soporte. */
  ownTaxId?: string | null;
  /** The DIAN software the service issues with: a documento soporte of this software has its CUDS recomputed. */
  dianSoftware?: { id: string; pin: string } | null;
}

export interface NormalizedDocument {
  country: FiscalCountry;
  /** Which format it came from. */
  format: 'dian-ubl-2.1' | 'cfdi-4.0';
  type: FiscalDocumentType;
  /** Colombia: cbc:ID (prefix and number). Mexico: Serie + Folio, or the UUID when neither is given. */
  documentNumber: string;
  /** Colombia: the document's own CUFE/CUDE, 96 lowercase hex characters. Mexico: the TimbreFiscalDigital UUID, lowercase. */
  fiscalReference: string;
  /** ISO 8601 date-time with offset (Colombia -05:00 when the XML gives none; CFDI Fecha is local Mexico time). */
  issueDate: string;
  /** ISO 8601 date-time, or null when the document has no due date. */
  expirationDate: string | null;
  /** ISO 4217 code as in the XML (COP, USD, MXN, EUR...). */
  currency: string;
  /** The rate from `currency` to the country's own currency, when the document is in another one and states it. */
  exchangeRate: FiscalExchangeRate | null;
  /**
   * A rate a document in the local currency states as information (a DIAN COP invoice priced in dollars states
   * COP → USD): kept with the document, never used to convert, since its amounts are already local.
   */
  statedExchangeRate: FiscalExchangeRate | null;
  totals: {
    /** Sum of line subtotals (UBL LineExtensionAmount, CFDI SubTotal minus Descuento). */
    subtotalCents: bigint;
    taxTotalCents: bigint;
    withholdingTotalCents: bigint;
    /** The document's total: UBL PayableAmount plus PrepaidAmount when the issuer subtracted it; CFDI Total. */
    totalCents: bigint;
  };
  /** UBL PrepaidAmount (advances paid before the invoice) and how PayableAmount treated it; null when none. */
  prepaid: FiscalPrepaid | null;
  /** Who is paid: the issuer of an invoice or note, the seller of a documento soporte. */
  supplier: FiscalParty;
  /** Who pays: the company. */
  customer: FiscalParty;
  lineItems: FiscalLineItem[];
  /** The buyer's purchase-order reference (UBL OrderReference/ID; CFDI has no standard field: null). */
  purchaseOrder: string | null;
  /** Free-text notes of the document (UBL cbc:Note at the root; CFDI has none standard). */
  finalNotes: string[];
  /** Documents this one refers to (credit and debit notes): never this document's own reference. */
  references: FiscalReferenceToOther[];
  /** Payment form and method: DIAN PaymentMeans ID (1 cash, 2 credit) and code; CFDI FormaPago and MetodoPago (PUE/PPD). */
  payment: { form: string | null; method: string | null; dueDate: string | null };
  /** Format-specific facts kept for traceability (profile, environment, stamp date, certificate numbers...). */
  metadata: Record<string, unknown>;
  /** The documento soporte's own facts when the file is one (type `expense`); null for every other document. */
  supportDocument: SupportDocumentFacts | null;
}

/** A Mexican payment receipt (CFDI type P, Pagos 2.0): each related document it pays. */
export interface NormalizedPaymentComplement {
  country: 'MEX';
  format: 'cfdi-4.0';
  /** The TimbreFiscalDigital UUID of the payment receipt, lowercase. */
  fiscalReference: string;
  documentNumber: string;
  issueDate: string;
  supplier: FiscalParty;
  customer: FiscalParty;
  payments: {
    paidAt: string;
    /** FormaDePagoP */
    form: string | null;
    currency: string;
    amountCents: bigint;
    relatedDocuments: {
      /** UUID of the paid invoice, lowercase. */
      fiscalReference: string;
      documentNumber: string | null;
      currency: string;
      installment: number;
      previousBalanceCents: bigint;
      paidCents: bigint;
      outstandingCents: bigint;
    }[];
  }[];
}

export type ParsedFiscalFile =
  | { kind: 'document'; document: NormalizedDocument }
  | { kind: 'payment_complement'; complement: NormalizedPaymentComplement };
