-- Provably fair deals (docs/fairness.md): each game's secret server-seed
-- chains and seat seeds, as JSON written and read only by the service.
-- Never shown as is: views show only commitments and finished deals' seeds.
ALTER TABLE games ADD COLUMN fairness TEXT;
