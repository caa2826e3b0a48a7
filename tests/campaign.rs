//! Integration tests: campaign.
