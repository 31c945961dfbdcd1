"""Independent finance arithmetic for tests: plain floats, math.ceil/floor, loops, bisection IRR.

Written apart from tcoapp.engine (it does not import it) to check the engine against docs/model.md section 3.
"""
import math
def case(price, dps, sprice, tdp, idle, sover, n, cap_kw, spr_max, other, pue, elec, coloc, maint, soft, staff, util, years, r, resid, pout, pin, lin, lout, tps, pw):
    servers = math.ceil(n/dps)
    nameplate = dps*tdp + sover
    spr = min(spr_max, math.floor(cap_kw*1000/nameplate))
    racks = math.ceil(servers/spr)
    hw = n*price + servers*sprice
    capex = hw*(1+other)
    avg_w = util*pw + (1-util)*idle
    it_avg = (n*avg_w + servers*sover)/1000
    it_prov = servers*nameplate/1000
    energy = it_avg*pue*8760*elec
    col = it_prov*coloc*12
    opex = energy + col + maint*hw + soft*n + staff
    out_tok = tps*n*util*8760*3600
    in_tok = out_tok*lin/lout
    crf = 1/years if r == 0 else r/(1-(1+r)**-years)
    capyr = (capex - resid*capex/(1+r)**years)*crf
    cpm_out = (capyr+opex)/out_tok*1e6
    cpm_tot = (capyr+opex)/(out_tok+in_tok)*1e6
    rev = out_tok*pout/1e6 + in_tok*pin/1e6
    flows = [-capex] + [rev-opex]*years
    flows[-1] += resid*capex
    npv = sum(f/(1+r)**t for t,f in enumerate(flows))
    cum = 0; pay = None
    for t,f in enumerate(flows):
        prev = cum; cum += f
        if t>0 and cum >= 0 and pay is None:
            pay = 12*((t-1) + (-prev)/(cum-prev))
    roi = sum(flows[1:])/capex - 1
    # IRR by bisection on the NPV function
    def f(rate): return sum(fl/(1+rate)**t for t,fl in enumerate(flows))
    lo, hi = -0.99, 100.0
    irr = None
    if f(lo)*f(hi) < 0:
        for _ in range(300):
            mid = (lo+hi)/2
            if f(lo)*f(mid) <= 0: hi = mid
            else: lo = mid
        irr = (lo+hi)/2
    return dict(servers=servers, servers_per_rack=spr, racks=racks, capex_usd=capex, it_avg_kw=it_avg, it_provisioned_kw=it_prov,
        energy_usd_per_year=energy, opex_usd_per_year=opex, output_tokens_per_year=out_tok, capex_usd_per_year=capyr,
        cost_per_million_output_tokens_usd=cpm_out, cost_per_million_total_tokens_usd=cpm_tot, revenue_usd_per_year=rev,
        revenue_usd_per_rack_per_year=rev/racks, npv_usd=npv, irr=irr, payback_months=pay, roi=roi)


def payback_months(flows):
    """docs/model.md "Finance": the earliest time after which the cumulative flow stays >= 0 up to the
    horizon, linear within the year, x 12; 0 where it is never below 0; None where it is below 0 at the
    horizon. A plain walk over the years, apart from the engine."""
    cumulative, total = [], 0.0
    for flow in flows:
        total += flow
        cumulative.append(total)
    if cumulative[-1] < 0:
        return None
    below = [t for t, c in enumerate(cumulative) if c < 0]
    if not below:
        return 0.0
    t = below[-1]
    return 12 * (t + (-cumulative[t]) / (cumulative[t + 1] - cumulative[t]))


def held_capex_cost_by_year(tranches, years, fraction):
    """docs/model.md "Insurance and property tax": year t (1..years) pays `fraction` x the capex of every
    bought tranche held that year (paid in an earlier year: purchase_year < t); year 0 pays nothing; a
    rented tranche holds no capex. tranches: (capex_usd, purchase_year, owned) each. A loop per year."""
    out = [0.0]
    for t in range(1, years + 1):
        held = 0.0
        for capex, bought, owned in tranches:
            if owned and bought < t:
                held += capex
        out.append(fraction * held)
    return out


def tranche_capex(price, dps, sprice, n, other, network=0.0, storage=0.0, installation=0.0):
    """One bought tranche's capex: devices and whole servers, the overhead fraction and the itemized lines."""
    servers = math.ceil(n / dps)
    return (n * price + servers * sprice) * (1 + other) + n * (network + storage) + servers * installation
