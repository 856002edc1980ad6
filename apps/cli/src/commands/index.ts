import { Command } from '../command';
import { caInit } from './ca-init';
import { caReplaceLeaves, caReplacement } from './ca-replace-leaves';
import { certExpiring } from './cert-expiring';
import { certIssue } from './cert-issue';
import { certList } from './cert-list';
import { certRenew } from './cert-renew';
import { certRevoke } from './cert-revoke';
import { certReleaseHold } from './cert-release-hold';
import { certShow } from './cert-show';
import { webhookAdd, webhookDelete, webhookDeliveries, webhookList, webhookTest } from './webhook';
import { certSearch } from './cert-search';
import { certExport } from './cert-export';

export const COMMANDS: Command[] = [
  caInit,
  caReplaceLeaves,
  caReplacement,
  certIssue,
  certList,
  certShow,
  certRenew,
  certRevoke,
  certReleaseHold,
  certExpiring,
  webhookAdd,
  webhookList,
  webhookDelete,
  webhookTest,
  webhookDeliveries,
  certSearch,
  certExport,
];
